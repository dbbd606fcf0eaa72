// The build-time splice of the SIMD kernels into wllama's wasm (scripts/wasm-kernels): the committed kernel files
// are the ones kernels.sha256 names (build.sh reproduces both from kernels.c with Debian's clang 22), each kernel
// lands in wllama's main (64-bit) and compat (32-bit) builds in place of ggml's generic function of the same name
// and signature, and
// every mismatch fails loudly. Their results are checked in Chromium and Firefox (wasm-kernels.browser.test.ts,
// test/firefox/wasm-kernels.test.ts).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KERNELS, VARIANTS, kernelFile, portableBody, readModule, spliceKernels } from '../../scripts/wasm-kernels/splice.mjs';
import { WLLAMA_COMPAT_WASM, WLLAMA_WASM } from '../../scripts/wasm-kernels/vite-plugin';

const DIR = new URL('../../scripts/wasm-kernels/', import.meta.url);
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
        expect(changed.sort()).toEqual([...KERNELS].sort());
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
