// Puts the kernels of scripts/wasm-kernels/kernels.c (compiled: kernels-<memory>-<variant>.wasm beside this file)
// into wllama's wasm in place of the generic bodies of the functions with the same names: every
// function keeps its index, so the name section, the table and every call stay as they are. It fails loudly when a
// name is missing from wllama's wasm, when a signature differs, or when a kernel's body could not move as it is
// (a call, a global such as the stack pointer, a table, a type-indexed block, a second memory). Beside the bodies it
// sets `nrows` to 2 in ggml's type_traits_cpu table (a data segment) for the four types whose kernels take 2×2 tiles
// (TILED_TYPES), so ggml's mul_mat hands them tiles, and fails loudly unless it finds each entry exactly once, where
// ggml's layout puts it; and it makes three insertions in ggml_compute_forward_mul_mat so that prompts of any length get
// those tiles (oddColumnTiles). binaryen (npm) validates the result. docs/engines.md ("The WebAssembly files: SIMD kernels") says why this route and how the
// kernel files are made.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import binaryen from 'binaryen';
import { reader } from '../wasm-functions.mjs';

const HERE = fileURLToPath(new URL('.', import.meta.url));
/** The kernels every variant must replace, by ggml's names. */
export const KERNELS = [
  'ggml_vec_dot_q4_K_q8_K',
  'ggml_vec_dot_q6_K_q8_K',
  'ggml_vec_dot_q8_0_q8_0',
  'ggml_vec_dot_q4_0_q8_0',
  'ggml_cpu_fp16_to_fp32',
  'ggml_fp16_to_fp32_row',
];
/**
 * The types whose kernels take ggml's 2×2 tiles (kernels.c), as their entries of ggml's type_traits_cpu read: the
 * type's number (ggml.h), its activation quantizer (from_float of vec_dot_type), its dot kernel, vec_dot_type.
 */
export const TILED_TYPES = [
  { type: 'Q4_0', id: 2, fromFloat: 'quantize_row_q4_0', vecDot: 'ggml_vec_dot_q4_0_q8_0', vecDotType: 8 },
  { type: 'Q8_0', id: 8, fromFloat: 'quantize_row_q8_0', vecDot: 'ggml_vec_dot_q8_0_q8_0', vecDotType: 8 },
  { type: 'Q4_K', id: 12, fromFloat: 'quantize_row_q4_K', vecDot: 'ggml_vec_dot_q4_K_q8_K', vecDotType: 15 },
  { type: 'Q6_K', id: 14, fromFloat: 'quantize_row_q6_K', vecDot: 'ggml_vec_dot_q6_K_q8_K', vecDotType: 15 },
];
/**
 * struct ggml_type_traits_cpu {from_float, vec_dot, vec_dot_type, int64_t nrows} by pointer size: its size and the
 * offsets of its fields (kernels.c asserts the same numbers with clang for both memories).
 */
export const TRAITS_LAYOUT = {
  4: { size: 24, vecDot: 4, vecDotType: 8, nrows: 16 },
  8: { size: 32, vecDot: 8, vecDotType: 16, nrows: 24 },
};

/** The wasm variants beside wllama's own (generic): SIMD128 kernels, and relaxed-SIMD dot products where exact. */
export const VARIANTS = ['simd128', 'relaxed'];

function leb(n) {
  const out = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return out;
}

const VALTYPES = { 0x7f: 'i32', 0x7e: 'i64', 0x7d: 'f32', 0x7c: 'f64', 0x7b: 'v128' };

/** A module's sections, function signatures (by function index), function names, bodies and memory kind. */
export function readModule(bytes) {
  if (readUint32(bytes, 0) !== 0x6d736100) throw new Error('not a WebAssembly module');
  const r = reader(bytes, 8);
  const sections = [];
  const types = [];
  const funcTypes = [];
  const names = new Map();
  let importedFuncs = 0;
  let memory64 = null;
  let code = null;
  while (r.at < bytes.length) {
    const start = r.at;
    const id = r.u8();
    const size = r.u32();
    const body = r.at;
    const end = body + size;
    const s = reader(bytes, body);
    let custom = null;
    if (id === 0) custom = s.name();
    sections.push({ id, start, body, end, custom });
    if (id === 1) {
      for (let n = s.u32(); n > 0; n--) {
        const form = s.u8();
        if (form !== 0x60) throw new Error(`type section: form 0x${form.toString(16)} is not read here`);
        const params = [];
        for (let k = s.u32(); k > 0; k--) params.push(VALTYPES[s.u8()] ?? 'ref');
        const results = [];
        for (let k = s.u32(); k > 0; k--) results.push(VALTYPES[s.u8()] ?? 'ref');
        types.push(`(${params.join(',')})->(${results.join(',')})`);
      }
    } else if (id === 2) {
      for (let n = s.u32(); n > 0; n--) {
        s.name();
        s.name();
        const kind = s.u8();
        if (kind === 0) {
          funcTypes.push(types[s.u32()]);
          importedFuncs++;
        } else if (kind === 1) {
          s.u8();
          limits(s);
        } else if (kind === 2) memory64 = (limits(s) & 4) !== 0;
        else if (kind === 3) {
          s.u8();
          s.u8();
        } else if (kind === 4) {
          s.u8();
          s.u32();
        }
      }
    } else if (id === 3) {
      for (let n = s.u32(); n > 0; n--) funcTypes.push(types[s.u32()]);
    } else if (id === 5 && memory64 === null) {
      if (s.u32() > 0) memory64 = (limits(s) & 4) !== 0;
    } else if (id === 10) {
      code = { bodies: [] };
      for (let n = s.u32(); n > 0; n--) {
        const len = s.u32();
        code.bodies.push(bytes.subarray(s.at, s.at + len));
        s.at += len;
      }
    } else if (id === 0 && custom === 'name') {
      while (s.at < end) {
        const sub = s.u8();
        const subEnd = s.u32() + s.at;
        if (sub === 1) for (let n = s.u32(); n > 0; n--) names.set(s.u32(), s.name());
        s.at = subEnd;
      }
    }
    r.at = end;
  }
  if (!code) throw new Error('no code section');
  const byName = new Map([...names].map(([index, name]) => [name, index]));
  return { bytes, sections, funcTypes, importedFuncs, names, byName, bodies: code.bodies, memory64: memory64 === true };
}

function limits(s) {
  const flags = s.u8();
  s.u32();
  if (flags & 1) s.u32();
  return flags;
}

function readUint32(bytes, at) {
  return (bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24)) >>> 0;
}

/**
 * Checks that a function body only uses what any module has the same way (locals, memory 0, constants, numeric and
 * SIMD instructions, structured control with value-typed blocks), so it means the same in wllama's module. Returns
 * the count of i32x4.dot_i16x8_s and relaxed dot instructions in it. `allowedGlobals`: global indices that mean
 * the same in both modules (the per-kernel bench moves wllama's generic bodies, which use the stack pointer, global
 * 0 in both, into a kernel module).
 */
export function portableBody(body, what, allowedGlobals = []) {
  const r = reader(body, 0);
  for (let groups = r.u32(); groups > 0; groups--) {
    r.u32();
    r.u8();
  }
  const refuse = (why) => {
    throw new Error(`${what}: its body ${why} (at byte ${r.at}): it cannot be moved into wllama's module as it is`);
  };
  const memarg = () => {
    const align = r.u32();
    if (align & 0x40 && r.u32() !== 0) refuse('uses a second memory');
    r.u32();
  };
  let dots = 0;
  let relaxedDots = 0;
  while (r.at < body.length) {
    const op = r.u8();
    if (op <= 0x01 || op === 0x05 || op === 0x0b || op === 0x0f || op === 0x1a || op === 0x1b) continue;
    if (op >= 0x02 && op <= 0x04) {
      const t = r.u8();
      if (t !== 0x40 && !VALTYPES[t]) refuse('has a block typed by a type index');
    } else if (op === 0x0c || op === 0x0d || (op >= 0x20 && op <= 0x22)) r.u32();
    else if (op === 0x0e) {
      for (let n = r.u32(); n >= 0; n--) r.u32();
    } else if (op >= 0x28 && op <= 0x3e) memarg();
    else if (op === 0x41 || op === 0x42) r.u32();
    else if (op === 0x43) r.at += 4;
    else if (op === 0x44) r.at += 8;
    else if (op >= 0x45 && op <= 0xc4) continue;
    else if (op === 0xfc) {
      if (r.u32() > 7) refuse('uses a bulk-memory or table instruction');
    } else if (op === 0xfd) {
      const sub = r.u32();
      if (sub === 0xba) dots++;
      if (sub === 0x112 || sub === 0x113) relaxedDots++;
      if (sub <= 11 || sub === 92 || sub === 93) memarg();
      else if (sub === 12 || sub === 13) r.at += 16;
      else if (sub >= 21 && sub <= 34) r.u8();
      else if (sub >= 84 && sub <= 91) {
        memarg();
        r.u8();
      }
    } else if (op === 0x10 || op === 0x11 || op === 0x12 || op === 0x13) refuse('calls a function');
    else if ((op === 0x23 || op === 0x24) && allowedGlobals.includes(r.u32())) continue;
    else if (op === 0x23 || op === 0x24) refuse('reads or writes a global (the stack pointer?)');
    else refuse(`has instruction 0x${op.toString(16)}`);
  }
  if (r.at !== body.length) refuse('does not decode to its end');
  return { dots, relaxedDots };
}

/** Every offset in `bytes` where `pattern` (bytes, or an array of byte values) starts, overlapping ones included. */
function offsetsOf(bytes, pattern) {
  const haystack = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const needle = Buffer.from(pattern);
  const found = [];
  for (let i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + 1)) found.push(i);
  return found;
}

/** The table slots of the module's functions (function index → first slot), from active element segments. */
function tableSlots(host) {
  const elem = host.sections.find((x) => x.id === 9);
  if (!elem) throw new Error("wllama's wasm has no element section: ggml's type_traits_cpu cannot be found");
  const r = reader(host.bytes, elem.body);
  const slots = new Map();
  for (let n = r.u32(); n > 0; n--) {
    const flags = r.u32();
    if (flags !== 0) throw new Error(`wllama's wasm: element segment form ${flags} is not read here`);
    const offset = constExpr(r, 'element segment');
    for (let k = r.u32(), i = 0; i < k; i++) {
      const f = r.u32();
      if (!slots.has(f)) slots.set(f, offset + i);
    }
  }
  return slots;
}

/** An offset expression (i32.const or i64.const, then end). */
function constExpr(r, what) {
  const op = r.u8();
  const value = op === 0x41 || op === 0x42 ? Number(r.s64()) : null;
  if (value === null || r.u8() !== 0x0b) throw new Error(`wllama's wasm: a ${what} whose offset is not a constant`);
  return value;
}

/** The data segments' bytes (file offsets of their contents), active or passive. */
function dataSegments(host) {
  const data = host.sections.find((x) => x.id === 11);
  if (!data) throw new Error("wllama's wasm has no data section: ggml's type_traits_cpu cannot be found");
  const r = reader(host.bytes, data.body);
  const segments = [];
  for (let n = r.u32(); n > 0; n--) {
    const flags = r.u32();
    if (flags === 2) r.u32();
    if (flags === 0 || flags === 2) constExpr(r, 'data segment');
    else if (flags !== 1) throw new Error(`wllama's wasm: data segment form ${flags} is not read here`);
    const length = r.u32();
    segments.push({ at: r.at, end: r.at + length });
    r.at += length;
  }
  return segments;
}

/**
 * The file offsets of the `nrows` fields of TILED_TYPES' entries in ggml's type_traits_cpu, each checked: the entry
 * (from_float's and vec_dot's table slots, vec_dot_type, its padding, nrows = `nrows`) found exactly once in the data,
 * and the table's first entry (F32: ggml_cpu_fp32_to_fp32, ggml_vec_dot_f32, F32, 1) where the layout puts it before
 * Q4_0's. Throws, naming the type, otherwise.
 */
export function traitsRows(host, nrows = 1) {
  const ptr = host.memory64 ? 8 : 4;
  const layout = TRAITS_LAYOUT[ptr];
  const slots = tableSlots(host);
  const slot = (name) => {
    const index = host.byName.get(name);
    if (index === undefined) throw new Error(`wllama's wasm has no function named ${name}: ggml's type_traits_cpu cannot be found`);
    const at = slots.get(index);
    if (at === undefined) throw new Error(`${name} is in no table slot of wllama's wasm: ggml's type_traits_cpu cannot be found`);
    return at;
  };
  const entry = (fromFloat, vecDot, vecDotType, rows) => {
    const e = new Uint8Array(layout.size);
    const v = new DataView(e.buffer);
    const put = (at, n) => (ptr === 8 ? v.setBigUint64(at, BigInt(n), true) : v.setUint32(at, n, true));
    put(0, fromFloat);
    put(layout.vecDot, vecDot);
    v.setUint32(layout.vecDotType, vecDotType, true);
    v.setBigInt64(layout.nrows, BigInt(rows), true);
    return e;
  };
  const segments = dataSegments(host);
  const bytes = host.bytes;
  const find = (pattern) => segments.flatMap(({ at, end }) => offsetsOf(bytes.subarray(at, end), pattern).map((i) => at + i));
  const rows = [];
  for (const t of TILED_TYPES) {
    const found = find(entry(slot(t.fromFloat), slot(t.vecDot), t.vecDotType, nrows));
    if (found.length !== 1)
      throw new Error(
        `ggml's type_traits_cpu entry of ${t.type} (${t.fromFloat}, ${t.vecDot}, vec_dot_type ${t.vecDotType}, nrows ${nrows}) is in wllama's wasm ${found.length} times, not once: its nrows cannot be set`,
      );
    rows.push({ type: t.type, at: found[0] + layout.nrows, entry: found[0] });
  }
  // Entries in one segment are where the layout puts them relative to each other (Binaryen's memory packing splits
  // segments at runs of zeros, such as the removed types 4 and 5, so not all of them share one).
  const segmentOf = (at) => segments.findIndex((x) => at >= x.at && at < x.end);
  for (const a of rows)
    for (const b of rows) {
      const [ta, tb] = [a, b].map((r) => TILED_TYPES.find((t) => t.type === r.type));
      if (segmentOf(a.entry) === segmentOf(b.entry) && b.entry - a.entry !== (tb.id - ta.id) * layout.size)
        throw new Error(
          `ggml's type_traits_cpu: the entries of ${a.type} and ${b.type} are ${b.entry - a.entry} bytes apart in wllama's wasm, not ${(tb.id - ta.id) * layout.size}: the table's layout is not ggml's`,
        );
    }
  const q4_0 = rows.find((r) => r.type === 'Q4_0').entry;
  const first = q4_0 - 2 * layout.size;
  const f32 = entry(slot('ggml_cpu_fp32_to_fp32'), slot('ggml_vec_dot_f32'), 0, 1);
  if (segmentOf(first) !== segmentOf(q4_0) || Buffer.compare(Buffer.from(bytes.subarray(first, first + layout.size)), Buffer.from(f32)) !== 0)
    throw new Error(`ggml's type_traits_cpu: the F32 entry is not ${2 * layout.size} bytes before Q4_0's in wllama's wasm: the table's layout is not ggml's`);
  return rows;
}

/** The bytes of `host` (readModule) with nrows = 2 in the type_traits_cpu entries of TILED_TYPES (traitsRows finds them). */
export function setTileRows(host) {
  const rows = traitsRows(host, 1);
  const out = new Uint8Array(host.bytes);
  const view = new DataView(out.buffer);
  for (const { at } of rows) view.setBigInt64(at, 2n, true);
  return { bytes: out, rows };
}

/** The kernel file for a host module and variant (its memory: 64-bit for wllama's main build, 32-bit for compat). */
export function kernelFile(host, variant) {
  return `${HERE}kernels-${host.memory64 ? 'wasm64' : 'wasm32'}-${variant}.wasm`;
}

/**
 * wllama's wasm with the kernels of `variant` in it, and nrows = 2 for TILED_TYPES. Throws (naming the function or
 * type) on any mismatch. `kernelBytes`: another kernel module than the committed one (tests). Returns the new bytes,
 * per kernel its function index and the body sizes before and after, and the types now tiled.
 */
export function spliceKernels(hostBytes, variant, kernelBytes) {
  const original = readModule(hostBytes);
  const kernels = readModule(kernelBytes ?? new Uint8Array(readFileSync(kernelFile(original, variant))));
  // nrows = 2 first (the data section keeps its place in the bytes until the code section changes size).
  const { bytes, rows } = setTileRows(original);
  const host = readModule(bytes);
  const oddColumns = oddColumnTiles(host);
  return {
    ...spliceBodies(host, kernels, KERNELS, {
      hostName: "wllama's wasm",
      sourceName: kernelFile(host, variant),
      patched: new Map([[oddColumns.index, oddColumns.body]]),
    }),
    tiles: rows.map((r) => r.type),
    chunks: oddColumns.at,
    memory64: host.memory64,
  };
}

/**
 * The locals of ggml_compute_forward_mul_mat in wllama's two builds, by memory (read off binaryen's text of that
 * function, `binaryen.emitText` of its body): `ne11` (src1's columns), `nr0` (dst's rows), `nr1` (ne1·ne2·ne3), and
 * the chunks: `nchunk0`/`dr0` (chunks of rows, rows per chunk), `nchunk1`/`dr1` (of columns). clang hoists ggml's
 * `(nr0 % 2 != 0) || (ne11 % 2 != 0)` out of the chunk loop as `((ne11 | nr0) & 1) == 0`, and computes
 * `dr = (n + nchunk - 1) / nchunk` ending in `local.get nchunk; i64.div_s; local.set dr`.
 */
export const MUL_MAT_LOCALS = {
  wasm64: { ne11: 30, nr0: 46, nr1: 55, nchunk0: 56, dr0: 52, nchunk1: 5, dr1: 48 },
  wasm32: { ne11: 37, nr0: 55, nr1: 65, nchunk0: 66, dr0: 58, nchunk1: 34, dr1: 57 },
};

/**
 * ggml_compute_forward_mul_mat's body with its 2×2 tiles for every chunk it can give them to. ggml's mul_mat hands a
 * chunk tiles only when the product's rows and columns are even and so are the chunk's (`num_rows_per_vec_dot = 1`
 * otherwise), and it cuts n columns into chunks of `dr1 = ceil(n / ceil(n / 16))`: odd for most prompt lengths (130
 * tokens: 9 chunks of 15), so most prompts, odd or even, ran every product one row by one column. Two changes:
 * - each chunk's size is rounded up to even (`dr = (dr + 1) & ~1`, rows and columns): every chunk but the last is
 *   then even, the chunks still cover the product (a last chunk may be empty, which ggml's loops skip);
 * - an odd column count no longer gives up tiles for the whole product. ggml's test (`ne11 % 2 != 0`, "to avoid
 *   crossing dim1 boundaries") matters only when src1 holds more than one matrix (ne12·ne13 > 1, i.e. nr1 != ne11:
 *   batched attention products, F16/F32, which take no tiles here anyway); in a 2-D product the chunk test that stays
 *   is enough, and only the last, odd chunk runs 1×1. So `ne11` there becomes `ne11 * (nr1 != ne11)`.
 * Each change is an insertion after an instruction found exactly once in the body; fails loudly otherwise (a new
 * wllama: read MUL_MAT_LOCALS again from its text).
 */
export function oddColumnTiles(host) {
  const name = 'ggml_compute_forward_mul_mat';
  const index = host.byName.get(name);
  if (index === undefined) throw new Error(`wllama's wasm has no function named ${name}: its chunks cannot take tiles`);
  const l = MUL_MAT_LOCALS[host.memory64 ? 'wasm64' : 'wasm32'];
  const body = host.bodies[index - host.importedFuncs];
  const find = (pattern) => offsetsOf(body, pattern);
  const once = (what, pattern) => {
    const found = find(pattern);
    if (found.length !== 1)
      throw new Error(
        `${name} in wllama's wasm: ${what} is there ${found.length} times, not once: MUL_MAT_LOCALS does not fit this build (read them again from its text)`,
      );
    return found[0];
  };
  // local.get ne11; local.get nr0; i64.or; i64.const 1; i64.and
  const test = once(`its column parity test ((ne11 | nr0) & 1, ne11 local ${l.ne11}, nr0 local ${l.nr0})`, [0x20, l.ne11, 0x20, l.nr0, 0x84, 0x42, 0x01, 0x83]);
  // i64.mul; local.tee nr1, with local.get ne11 among the 8 bytes before, before the test
  const ne11At = find([0x20, l.ne11]);
  const nr1 = find([0x7e, 0x22, l.nr1]).filter((at) => at < test && ne11At.some((g) => g < at && g >= at - 8));
  if (nr1.length !== 1)
    throw new Error(
      `${name} in wllama's wasm: nr1 (local ${l.nr1}) is set ${nr1.length} times before its column parity test, not once: MUL_MAT_LOCALS does not fit this build (read them again from its text)`,
    );
  const dr0 = once(`dr0 (local ${l.dr0}, by nchunk0 local ${l.nchunk0})`, [0x20, l.nchunk0, 0x7f, 0x21, l.dr0]);
  const dr1 = once(`dr1 (local ${l.dr1}, by nchunk1 local ${l.nchunk1})`, [0x20, l.nchunk1, 0x7f, 0x21, l.dr1]);
  const even = [0x42, 0x01, 0x7c, 0x42, 0x7e, 0x83]; // i64.const 1; i64.add; i64.const -2; i64.and
  const inserts = [
    { at: test + 2, bytes: [0x20, l.nr1, 0x20, l.ne11, 0x52, 0xad, 0x7e] }, // × (nr1 != ne11): local.get ×2; i64.ne; i64.extend_i32_u; i64.mul
    { at: dr0 + 3, bytes: even },
    { at: dr1 + 3, bytes: even },
  ].sort((x, y) => x.at - y.at);
  const parts = [];
  let from = 0;
  for (const { at, bytes } of inserts) {
    parts.push(body.subarray(from, at), Uint8Array.from(bytes));
    from = at;
  }
  parts.push(body.subarray(from));
  const patched = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    patched.set(p, at);
    at += p.length;
  }
  return { index, body: patched, at: { test, dr0, dr1 } };
}

/** `host` (readModule) with the bodies of `names` taken from `source`, each checked as spliceKernels says. */
export function spliceBodies(host, source, names, { hostName, sourceName, allowedGlobals = [], patched = new Map() }) {
  const hostBytes = host.bytes;
  const replaced = new Map([...patched].map(([index, body]) => [index - host.importedFuncs, body]));
  const report = [];
  for (const name of names) {
    const at = host.byName.get(name);
    if (at === undefined) throw new Error(`${hostName} has no function named ${name} (no name section, or llama.cpp renamed it): the kernels cannot go in`);
    const from = source.byName.get(name);
    if (from === undefined) throw new Error(`${sourceName} has no ${name}`);
    if (at < host.importedFuncs) throw new Error(`${name} is imported in ${hostName}`);
    const want = host.funcTypes[at];
    const have = source.funcTypes[from];
    if (want !== have)
      throw new Error(
        `${name}: ${hostName === "wllama's wasm" ? "wllama's" : hostName + "'s"} signature is ${want}, the kernel's ${have}: the kernel does not fit`,
      );
    const body = source.bodies[from - source.importedFuncs];
    const { dots, relaxedDots } = portableBody(body, `kernel ${name}`, allowedGlobals);
    replaced.set(at - host.importedFuncs, body);
    report.push({ name, index: at, before: host.bodies[at - host.importedFuncs].length, after: body.length, dots, relaxedDots });
  }
  const bodies = host.bodies.map((b, i) => replaced.get(i) ?? b);
  const codeContent = [leb(bodies.length)];
  for (const b of bodies) codeContent.push(leb(b.length), b);
  const parts = [hostBytes.subarray(0, 8)];
  for (const s of host.sections) {
    // The source map's offsets no longer hold after the code section changes: its pointer goes.
    if (s.custom === 'sourceMappingURL') continue;
    if (s.id !== 10) {
      parts.push(hostBytes.subarray(s.start, s.end));
      continue;
    }
    const size = codeContent.reduce((n, p) => n + p.length, 0);
    parts.push(Uint8Array.of(10, ...leb(size)));
    for (const p of codeContent) parts.push(p instanceof Uint8Array ? p : Uint8Array.from(p));
  }
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return { bytes: out, report };
}

/** Validates a module with binaryen (npm), every feature wllama's builds use enabled. */
export async function validate(bytes, what) {
  const module = binaryen.readBinary(bytes);
  try {
    module.setFeatures(binaryen.Features.All);
    if (!module.validate()) throw new Error(`${what}: binaryen says the spliced module is not valid`);
  } finally {
    module.dispose();
  }
}

/** sha256 of bytes, hex. */
export const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
