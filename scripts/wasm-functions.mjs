// A small reader of a WebAssembly module's functions, for the llama.cpp profile (scripts/profile-llama.mjs): wllama's
// wasm has no name section, so the profiler names its functions by index only. For one function this says what its
// body does — its size, the SIMD, float and atomic instructions it holds, whom it calls (imported and exported names),
// and the C strings it points at (assert messages and file names of llama.cpp) — enough to tell a dot-product
// kernel from a thread barrier. It decodes the instructions (MVP, SIMD, atomics, bulk memory), not bytes by pattern.

/** A cursor over `bytes` from `at`: bytes, unsigned and signed LEB128 numbers, names (also used by wasm-kernels/splice.mjs). */
export function reader(bytes, at = 0) {
  const r = {
    at,
    u8: () => bytes[r.at++],
    u32() {
      let result = 0;
      let shift = 0;
      for (;;) {
        const b = bytes[r.at++];
        result += (b & 0x7f) * 2 ** shift;
        shift += 7;
        if (!(b & 0x80)) return result;
      }
    },
    s64() {
      let result = 0n;
      let shift = 0n;
      let b;
      do {
        b = bytes[r.at++];
        result |= BigInt(b & 0x7f) << shift;
        shift += 7n;
      } while (b & 0x80);
      if (b & 0x40) result -= 1n << shift;
      return result;
    },
    name() {
      const n = r.u32();
      const s = new TextDecoder().decode(bytes.subarray(r.at, r.at + n));
      r.at += n;
      return s;
    },
  };
  return r;
}

/** The module's sections: function imports (names), exports (names by index), code bodies, active data segments. */
export function readModule(bytes) {
  const r = reader(bytes, 8);
  const imports = [];
  const exports = new Map();
  const bodies = [];
  const data = [];
  while (r.at < bytes.length) {
    const id = r.u8();
    const size = r.u32();
    const end = r.at + size;
    if (id === 2) {
      for (let n = r.u32(); n > 0; n--) {
        const name = `${r.name()}.${r.name()}`;
        const kind = r.u8();
        if (kind === 0) {
          r.u32();
          imports.push(name);
        } else if (kind === 1) {
          r.u8();
          limits(r);
        } else if (kind === 2) limits(r);
        else if (kind === 3) {
          r.u8();
          r.u8();
        } else if (kind === 4) {
          r.u8();
          r.u32();
        }
      }
    } else if (id === 7) {
      for (let n = r.u32(); n > 0; n--) {
        const name = r.name();
        const kind = r.u8();
        const index = r.u32();
        if (kind === 0) exports.set(index, name);
      }
    } else if (id === 10) {
      for (let n = r.u32(); n > 0; n--) {
        const len = r.u32();
        bodies.push({ start: r.at, end: r.at + len });
        r.at += len;
      }
    } else if (id === 11) {
      for (let n = r.u32(); n > 0; n--) {
        const flags = r.u32();
        let offset = null;
        if (flags === 0 || flags === 2) {
          if (flags === 2) r.u32();
          if (r.u8() === 0x41) offset = Number(r.s64());
          while (r.u8() !== 0x0b);
        }
        const len = r.u32();
        // A passive segment (a threaded build's) gets its address from a memory.init in __wasm_init_memory.
        data.push({ offset, bytes: bytes.subarray(r.at, r.at + len) });
        r.at += len;
      }
    }
    r.at = end;
  }
  const module = { bytes, imports, exports, bodies, data };
  // Passive segments: their addresses are the memory.init destinations (an i32.const three instructions before).
  if (data.some((d) => d.offset === null)) {
    for (let i = 0; i < bodies.length; i++) {
      for (const [segment, destination] of describeFunction(module, imports.length + i).inits)
        if (data[segment]?.offset === null) data[segment].offset = destination;
    }
  }
  return module;
}

function limits(r) {
  const flags = r.u8();
  r.u32();
  if (flags & 1) r.u32();
}

const memarg = (r) => {
  const align = r.u32();
  if (align & 0x40) r.u32();
  r.u32();
};

/** SIMD sub-opcodes by what they tell about a function. */
const SIMD_KINDS = {
  'i32x4.dot_i16x8_s': [0xba],
  'i16x8.extmul (i8 → i16 products)': [0x9c, 0x9d, 0x9e, 0x9f],
  'i32x4.extmul (i16 → i32 products)': [0xbc, 0xbd, 0xbe, 0xbf],
  'i16x8.mul / i32x4.mul': [0x95, 0xb5],
  'f32x4.mul': [0xe6],
  'f32x4.add': [0xe4],
  'f32x4.convert / demote / promote': [0xfa, 0xfb, 0x5e, 0x5f],
  'i8x16.shuffle / swizzle': [0x0d, 0x0e],
  'v128.load / store': [0x00, 0x0b],
};

/** Decodes function `index` (in the module's function index space) and sums up what its body does. */
export function describeFunction(module, index) {
  const { bytes, imports, exports, bodies, data } = module;
  if (index < imports.length) return { index, imported: imports[index] };
  const body = bodies[index - imports.length];
  if (!body) return { index, missing: true };
  const r = reader(bytes, body.start);
  for (let groups = r.u32(); groups > 0; groups--) {
    r.u32();
    r.u8();
  }
  const simd = new Map();
  let simdTotal = 0;
  let atomics = 0;
  let waits = 0;
  let instructions = 0;
  const calls = new Map();
  const constants = new Set();
  /** The last three integer constants, and memory.init's [segment, destination]. */
  const recent = [];
  const inits = [];
  while (r.at < body.end) {
    const op = r.u8();
    instructions++;
    if (op === 0x02 || op === 0x03 || op === 0x04 || op === 0x06) {
      const t = bytes[r.at];
      if (t === 0x40 || (t >= 0x6f && t <= 0x7f)) r.at++;
      else r.s64();
    } else if (op === 0x0c || op === 0x0d || (op >= 0x20 && op <= 0x26) || op === 0xd2 || op === 0x07 || op === 0x08 || op === 0x09 || op === 0x18) r.u32();
    else if (op === 0x0e) {
      for (let n = r.u32(); n >= 0; n--) r.u32();
    } else if (op === 0x10 || op === 0x12) {
      const callee = r.u32();
      calls.set(callee, (calls.get(callee) ?? 0) + 1);
    } else if (op === 0x11 || op === 0x13) {
      r.u32();
      r.u32();
    } else if (op === 0x1c) {
      for (let n = r.u32(); n > 0; n--) r.u8();
    } else if (op >= 0x28 && op <= 0x3e) memarg(r);
    else if (op === 0x3f || op === 0x40 || op === 0xd0) r.u8();
    else if (op === 0x41 || op === 0x42) {
      // Addresses are i64 in a 64-bit memory (wllama's build is one), i32 otherwise.
      const value = Number(r.s64());
      constants.add(value);
      recent.push(value);
      if (recent.length > 3) recent.shift();
    } else if (op === 0x43) r.at += 4;
    else if (op === 0x44) r.at += 8;
    else if (op === 0xfc) {
      const sub = r.u32();
      if (sub === 8) {
        inits.push([r.u32(), recent[0]]);
        r.u8();
      } else if (sub === 9 || sub === 13 || sub === 15 || sub === 16 || sub === 17) r.u32();
      else if (sub === 10) {
        r.u8();
        r.u8();
      } else if (sub === 11) r.u8();
      else if (sub === 12 || sub === 14) {
        r.u32();
        r.u32();
      }
    } else if (op === 0xfd) {
      const sub = r.u32();
      simdTotal++;
      simd.set(sub, (simd.get(sub) ?? 0) + 1);
      if (sub <= 11 || sub === 92 || sub === 93) memarg(r);
      else if (sub === 12 || sub === 13) r.at += 16;
      else if (sub >= 21 && sub <= 34) r.u8();
      else if (sub >= 84 && sub <= 91) {
        memarg(r);
        r.u8();
      }
    } else if (op === 0xfe) {
      const sub = r.u32();
      atomics++;
      if (sub === 1 || sub === 2) waits++;
      if (sub === 3) r.u8();
      else memarg(r);
    }
  }
  const kinds = Object.entries(SIMD_KINDS)
    .map(([name, subs]) => [name, subs.reduce((n, s) => n + (simd.get(s) ?? 0), 0)])
    .filter(([, n]) => n > 0);
  const named = (i) => (i < imports.length ? imports[i] : exports.get(i));
  const strings = [];
  for (const address of constants) {
    if (address < 1024) continue;
    const segment = data.find((d) => d.offset !== null && address >= d.offset && address < d.offset + d.bytes.length);
    if (!segment) continue;
    const from = address - segment.offset;
    const endAt = segment.bytes.indexOf(0, from);
    if (endAt <= from) continue;
    const text = new TextDecoder().decode(segment.bytes.subarray(from, Math.min(endAt, from + 120)));
    if (/^[\x20-\x7e]{4,}$/.test(text)) strings.push(text);
  }
  if (r.at !== body.end) throw new Error(`function ${index}: decoding ended at ${r.at - body.start} of ${body.end - body.start} bytes`);
  return {
    index,
    exported: exports.get(index),
    bytes: body.end - body.start,
    instructions,
    simd: simdTotal,
    simdKinds: Object.fromEntries(kinds),
    atomics,
    waits,
    calls: [...calls.entries()].map(([i, n]) => `${named(i) ?? `f${i}`}×${n}`).slice(0, 8),
    strings: strings.slice(0, 6),
    inits,
  };
}

/**
 * wllama's own table of function names (its wasm's name section from 3.13 on; before, `src/wasm/source-map.ts` in @wllama/wllama, made from emscripten's symbol
 * map; README-dev.md "Compressed source map"): wasm function index → cleaned C++ name, for its `default` build.
 */
export async function wllamaNames(build = 'default') {
  const { existsSync, readFileSync } = await import('node:fs');
  const { gunzipSync } = await import('node:zlib');
  const tableFile = new URL('../node_modules/@wllama/wllama/src/wasm/source-map.ts', import.meta.url);
  if (!existsSync(tableFile)) {
    // wllama 3.13 and later put the names in the wasm's own name section (scripts/add_wasm_names.js there).
    const { readModule } = await import('./wasm-kernels/splice.mjs');
    const { names } = readModule(readFileSync(new URL('../node_modules/@wllama/wllama/esm/wasm/wllama.wasm', import.meta.url)));
    if (names.size === 0) throw new Error("wllama's wasm has neither a name table (src/wasm/source-map.ts) nor a name section");
    return (index) => names.get(index);
  }
  const source = readFileSync(tableFile, 'utf8');
  const encoded = source.match(new RegExp(`"${build}":\\s*"([^"]+)"`))?.[1];
  if (!encoded) throw new Error(`no '${build}' build in wllama's name table`);
  const table = gunzipSync(Buffer.from(encoded, 'base64'));
  const first = table.readUInt32LE(0);
  const count = table.readUInt32LE(4);
  const names = [];
  let at = 12;
  for (let n = table.readUInt32LE(8); n > 0; n--) {
    const len = table[at];
    names.push(table.subarray(at + 1, at + 1 + len).toString('utf8'));
    at += 1 + len;
  }
  return (index) => {
    if (index < first || index >= first + count) return undefined;
    const slot = table.readUInt16LE(at + 2 * (index - first));
    return slot === 0xffff ? undefined : names[slot];
  };
}
