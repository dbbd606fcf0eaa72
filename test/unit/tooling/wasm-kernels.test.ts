// The build-time splice of the SIMD kernels into wllama's wasm (scripts/wasm-kernels): the committed kernel files
// are the ones kernels.sha256 names (build.sh reproduces both from kernels.c with Debian's clang 22), each kernel
// lands in wllama's main (64-bit) and compat (32-bit) builds in place of ggml's generic function of the same name
// and signature, ggml's type_traits_cpu gets nrows = 2 for exactly the four tiled types (so mul_mat hands their
// kernels 2×2 tiles), ggml's mul_mat keeps them for an odd column count in a 2-D product (oddColumnTiles), and every
// mismatch fails loudly. Their results are checked in Chromium and Firefox (wasm-kernels.browser.test.ts,
// test/firefox/wasm-kernels.test.ts).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  KERNELS,
  MUL_MAT_LOCALS,
  TILED_TYPES,
  TRAITS_LAYOUT,
  VARIANTS,
  kernelFile,
  oddColumnTiles,
  portableBody,
  readModule,
  spliceKernels,
  traitsRows,
} from '../../../scripts/wasm-kernels/splice.mjs';
import { WLLAMA_COMPAT_WASM, WLLAMA_WASM } from '../../../scripts/wasm-kernels/vite-plugin';

const DIR = new URL('../../../scripts/wasm-kernels/', import.meta.url);
const host = new Uint8Array(readFileSync(WLLAMA_WASM));
const BUILDS = [
  { build: 'main', bytes: host, memory64: true },
  { build: 'compat', bytes: new Uint8Array(readFileSync(WLLAMA_COMPAT_WASM)), memory64: false },
];

describe('wasm kernels: files and splice', () => {
  it('each committed kernel file has the sha256 kernels.sha256 gives it', () => {
    const listed = readFileSync(new URL('kernels.sha256', DIR), 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+/));
    expect(listed.map(([, file]) => file).sort()).toEqual([
      'kernels-wasm32-relaxed.wasm',
      'kernels-wasm32-simd128.wasm',
      'kernels-wasm64-relaxed.wasm',
      'kernels-wasm64-simd128.wasm',
    ]);
    for (const [sum, file] of listed)
      expect(
        createHash('sha256')
          .update(readFileSync(new URL(file!, DIR)))
          .digest('hex'),
        file,
      ).toBe(sum);
  });

  for (const { build, bytes: host, memory64 } of BUILDS)
    it(`wllama\u2019s ${build} build is ${memory64 ? 64 : 32}-bit and names every kernel; each variant replaces exactly those bodies`, () => {
      const before = readModule(host);
      expect(before.memory64).toBe(memory64);
      for (const name of KERNELS) expect(before.byName.has(name), name).toBe(true);
      for (const variant of VARIANTS) {
        expect(kernelFile(before, variant)).toMatch(new RegExp(`kernels-wasm${memory64 ? 64 : 32}-${variant}\\.wasm$`));
        const { bytes, report } = spliceKernels(host, variant);
        expect(report.map((r) => r.name)).toEqual(KERNELS);
        const after = readModule(bytes);
        expect(after.bodies.length).toBe(before.bodies.length);
        expect(after.names).toEqual(before.names);
        const kernels = readModule(new Uint8Array(readFileSync(kernelFile(before, variant))));
        const changed = after.bodies.flatMap((b, i) =>
          Buffer.compare(Buffer.from(b), Buffer.from(before.bodies[i]!)) === 0 ? [] : [before.names.get(i + before.importedFuncs)],
        );
        expect(changed.sort()).toEqual([...KERNELS, 'ggml_compute_forward_mul_mat'].sort());
        // mul_mat: its body as wllama's with three insertions: each chunk size rounded up to even (after dr0's and
        // dr1's `local.set`), and `ne11 * (nr1 != ne11)` in the column parity test.
        const mm = before.byName.get('ggml_compute_forward_mul_mat')! - before.importedFuncs;
        const [b0, b1] = [Buffer.from(before.bodies[mm]!), Buffer.from(after.bodies[mm]!)];
        const l = MUL_MAT_LOCALS[memory64 ? 'wasm64' : 'wasm32'];
        const even = [0x42, 0x01, 0x7c, 0x42, 0x7e, 0x83];
        const inserts = [
          { at: b0.indexOf(Buffer.from([0x20, l.nchunk0, 0x7f, 0x21, l.dr0])) + 3, bytes: even },
          { at: b0.indexOf(Buffer.from([0x20, l.nchunk1, 0x7f, 0x21, l.dr1])) + 3, bytes: even },
          { at: b0.indexOf(Buffer.from([0x20, l.ne11, 0x20, l.nr0, 0x84, 0x42, 0x01, 0x83])) + 2, bytes: [0x20, l.nr1, 0x20, l.ne11, 0x52, 0xad, 0x7e] },
        ].sort((x, y) => x.at - y.at);
        for (const { at } of inserts) expect(at).toBeGreaterThan(3);
        let rebuilt = Buffer.alloc(0);
        let from = 0;
        for (const { at, bytes } of inserts) {
          rebuilt = Buffer.concat([rebuilt, b0.subarray(from, at), Buffer.from(bytes)]);
          from = at;
        }
        expect(b1).toEqual(Buffer.concat([rebuilt, b0.subarray(from)]));
        expect(b1.length).toBe(b0.length + 19);
        for (const name of KERNELS) {
          const i = after.byName.get(name)! - after.importedFuncs;
          expect(Buffer.from(after.bodies[i]!)).toEqual(Buffer.from(kernels.bodies[kernels.byName.get(name)! - kernels.importedFuncs]!));
        }
        // wllama's generic bodies hold no i32x4.dot_i16x8_s and no relaxed dot product; the kernels do.
        const generic = portableBodySafe(before.bodies[before.byName.get('ggml_vec_dot_q4_K_q8_K')! - before.importedFuncs]!);
        expect(generic).toEqual({ dots: 0, relaxedDots: 0 });
        const q4k = report.find((r) => r.name === 'ggml_vec_dot_q4_K_q8_K')!;
        if (variant === 'simd128') expect([q4k.dots > 0, q4k.relaxedDots]).toEqual([true, 0]);
        else expect(q4k.relaxedDots).toBeGreaterThan(0);
      }
    });

  for (const { build, bytes: host, memory64 } of BUILDS)
    it(`wllama’s ${build} build: ggml’s type_traits_cpu says nrows 1 for the four tiled types; the splice makes it 2 there and changes no other data byte`, () => {
      const before = readModule(host);
      const layout = TRAITS_LAYOUT[memory64 ? 8 : 4];
      expect(layout).toEqual(memory64 ? { size: 32, vecDot: 8, vecDotType: 16, nrows: 24 } : { size: 24, vecDot: 4, vecDotType: 8, nrows: 16 });
      const rows = traitsRows(before, 1);
      expect(rows.map((r) => r.type)).toEqual(['Q4_0', 'Q8_0', 'Q4_K', 'Q6_K']);
      const i64 = (bytes: Uint8Array, at: number) => new DataView(bytes.buffer, bytes.byteOffset).getBigInt64(at, true);
      for (const { at } of rows) expect(i64(host, at)).toBe(1n);
      // Q4_K's and Q6_K's entries share a segment: two entries (2 × the struct's size) apart, as in ggml's table.
      expect(rows[3]!.entry - rows[2]!.entry).toBe(2 * layout.size);
      const { bytes, tiles } = spliceKernels(host, 'simd128');
      expect(tiles).toEqual(TILED_TYPES.map((t) => t.type));
      const after = readModule(bytes);
      const spliced = traitsRows(after, 2);
      expect(spliced.map((r) => r.type)).toEqual(['Q4_0', 'Q8_0', 'Q4_K', 'Q6_K']);
      for (const { at } of spliced) expect(i64(bytes, at)).toBe(2n);
      // The data section, byte by byte: only the low byte of those four nrows fields differs (1 → 2).
      const data = (m: ReturnType<typeof readModule>) => {
        const section = m.sections.find((x) => x.id === 11)!;
        return m.bytes.subarray(section.body, section.end);
      };
      const [d0, d1] = [data(before), data(after)];
      expect(d1.length).toBe(d0.length);
      const differ = [...d0.keys()].filter((i) => d0[i] !== d1[i]);
      expect(differ.map((i) => [d0[i], d1[i]])).toEqual([
        [1, 2],
        [1, 2],
        [1, 2],
        [1, 2],
      ]);
      expect(() => traitsRows(after, 1)).toThrow(/entry of Q4_0 .* is in wllama's wasm 0 times, not once/);
    });

  it('fails loudly: a type_traits_cpu entry that is missing or twice, or a table whose first entry is not where ggml puts it', () => {
    const module = readModule(host);
    const rows = traitsRows(module, 1);
    const q4k = rows.find((r) => r.type === 'Q4_K')!;
    const layout = TRAITS_LAYOUT[8];
    // Q4_K's vec_dot_type changed (the entry then reads as no type's).
    const changed = new Uint8Array(host);
    changed[q4k.entry + layout.vecDotType] = 14;
    expect(() => spliceKernels(changed, 'simd128')).toThrow(
      /type_traits_cpu entry of Q4_K \(quantize_row_q4_K, ggml_vec_dot_q4_K_q8_K, vec_dot_type 15, nrows 1\) is in wllama's wasm 0 times, not once/,
    );
    // Q4_K's entry copied over Q6_K's (Q4_K's then found twice).
    const q6k = rows.find((r) => r.type === 'Q6_K')!;
    const twice = new Uint8Array(host);
    twice.copyWithin(q6k.entry, q4k.entry, q4k.entry + layout.size);
    expect(() => traitsRows(readModule(twice), 1)).toThrow(/entry of Q4_K .* 2 times, not once/);
    // The F32 entry spoiled: the table does not start where the layout says.
    const q40 = rows.find((r) => r.type === 'Q4_0')!;
    const shifted = new Uint8Array(host);
    shifted[q40.entry - 2 * layout.size + layout.nrows] = 3;
    expect(() => traitsRows(readModule(shifted), 1)).toThrow(/the F32 entry is not 64 bytes before Q4_0's/);
  });

  for (const { build, bytes: host } of BUILDS)
    it(`wllama’s ${build} build: mul_mat’s column parity test and chunk sizes are found once each, and a build where one is not fails loudly`, () => {
      const module = readModule(host);
      const { at, body } = oddColumnTiles(module);
      const mm = module.byName.get('ggml_compute_forward_mul_mat')! - module.importedFuncs;
      expect(body.length).toBe(module.bodies[mm]!.length + 19);
      // The test's `i64.or` spoiled (an `i64.xor`): the pattern is gone, so the splice refuses.
      const spoiled = new Uint8Array(host);
      const bodyAt = module.bodies[mm]!.byteOffset - host.byteOffset;
      expect(spoiled[bodyAt + at.test + 4]).toBe(0x84);
      spoiled[bodyAt + at.test + 4] = 0x85;
      expect(() => spliceKernels(spoiled, 'simd128')).toThrow(
        /ggml_compute_forward_mul_mat in wllama's wasm: its column parity test .* is there 0 times, not once: MUL_MAT_LOCALS does not fit this build/,
      );
    });

  it('fails loudly: a signature that differs, a name that is missing, a body that uses a global or a call', () => {
    const wasm32 = new Uint8Array(readFileSync(new URL('kernels-wasm32-simd128.wasm', DIR)));
    expect(() => spliceKernels(host, 'simd128', wasm32)).toThrow(
      /ggml_vec_dot_q4_K_q8_K: wllama's signature is \(i32,i64,i64,i64,i64,i64,i64,i32\)->\(\), the kernel's \(i32,i32,i32,i32,i32,i32,i32,i32\)->\(\)/,
    );
    const renamed = Buffer.from(host);
    const at = renamed.lastIndexOf('ggml_vec_dot_q6_K_q8_K'); // the name section comes last
    renamed.write('ggml_vec_dot_q6_X', at);
    expect(() => spliceKernels(new Uint8Array(renamed), 'simd128')).toThrow(/wllama's wasm has no function named ggml_vec_dot_q6_K_q8_K/);
    expect(() => portableBody(Uint8Array.of(0x00, 0x23, 0x00, 0x1a, 0x0b), 'k')).toThrow(/reads or writes a global/);
    expect(() => portableBody(Uint8Array.of(0x00, 0x10, 0x03, 0x0b), 'k')).toThrow(/calls a function/);
    expect(() => portableBody(Uint8Array.of(0x00, 0x02, 0x05, 0x0b, 0x0b), 'k')).toThrow(/block typed by a type index/);
  });
});

/** Counts in a body that may use globals and calls (wllama's own). */
function portableBodySafe(body: Uint8Array) {
  const text = Buffer.from(body);
  // i32x4.dot_i16x8_s is 0xfd 0xba 0x01; the relaxed dot 0xfd 0x93 0x02: absent as byte pairs means absent.
  return { dots: text.includes(Buffer.from([0xfd, 0xba, 0x01])) ? 1 : 0, relaxedDots: text.includes(Buffer.from([0xfd, 0x93, 0x02])) ? 1 : 0 };
}
