// Puts the kernels of scripts/wasm-kernels/kernels.c (compiled: kernels-<memory>-<variant>.wasm beside this file)
// into wllama's wasm in place of the generic bodies of the functions with the same names, and nothing else: every
// function keeps its index, so the name section, the table and every call stay as they are. It fails loudly when a
// name is missing from wllama's wasm, when a signature differs, or when a kernel's body could not move as it is
// (a call, a global such as the stack pointer, a table, a type-indexed block, a second memory). binaryen (npm)
// validates the result. docs/engines.md ("The WebAssembly files: SIMD kernels") says why this route and how the
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

/** The kernel file for a host module and variant (its memory: 64-bit for wllama's main build, 32-bit for compat). */
export function kernelFile(host, variant) {
  return `${HERE}kernels-${host.memory64 ? 'wasm64' : 'wasm32'}-${variant}.wasm`;
}

/**
 * wllama's wasm with the kernels of `variant` in it. Throws (naming the function) on any mismatch.
 * `kernelBytes`: another kernel module than the committed one (tests). Returns the new bytes and, per kernel, its
 * function index and the body sizes before and after.
 */
export function spliceKernels(hostBytes, variant, kernelBytes) {
  const host = readModule(hostBytes);
  const kernels = readModule(kernelBytes ?? new Uint8Array(readFileSync(kernelFile(host, variant))));
  return { ...spliceBodies(host, kernels, KERNELS, { hostName: "wllama's wasm", sourceName: kernelFile(host, variant) }), memory64: host.memory64 };
}

/** `host` (readModule) with the bodies of `names` taken from `source`, each checked as spliceKernels says. */
export function spliceBodies(host, source, names, { hostName, sourceName, allowedGlobals = [] }) {
  const hostBytes = host.bytes;
  const replaced = new Map();
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
