// The SIMD kernels spliced into llama.cpp's wasm (scripts/wasm-kernels), in Firefox ESR: each kernel against ggml's
// scalar reference (test/kernels/kernel-check.ts, bundled here for the page), in both memory models, SIMD128 and
// relaxed SIMD where Firefox runs it; and the variant the run-time detection (wasm-detect.ts) picks in Firefox.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { KernelResult } from '../kernels/kernel-check';
import { REPO_ROOT } from '../browser/static-server';
import { firefox, newPage } from './firefox';

const FILES = ['wasm64-simd128', 'wasm64-relaxed', 'wasm32-simd128', 'wasm32-relaxed'] as const;

/** kernel-check.ts and wasm-detect.ts as one classic script that sets `window.kernels`. */
async function harness(): Promise<string> {
  const { build } = await import('rolldown');
  const dir = await mkdtemp(join(tmpdir(), 'inpage-kernels-'));
  try {
    const entry = join(dir, 'entry.ts');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(entry, [
      `export * from ${JSON.stringify(join(REPO_ROOT, 'test/kernels/kernel-check.ts'))};`,
      `export * from ${JSON.stringify(join(REPO_ROOT, 'worker/engine/llamacpp/wasm-detect.ts'))};`,
    ].join('\n'));
    await build({ input: entry, platform: 'browser', logLevel: 'silent', output: { file: join(dir, 'h.js'), format: 'iife', name: 'kernels' } });
    return await readFile(join(dir, 'h.js'), 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

interface Kernels {
  checkDots(bytes: Uint8Array): Promise<KernelResult[]>;
  checkFp16(bytes: Uint8Array): Promise<Record<string, { checked: number; wrong: number[] }>>;
  wasmVariant(): string;
  relaxedDotExact(): boolean;
  RELAXED_PROBE: Uint8Array<ArrayBuffer>;
}

describe('Firefox ESR, wasm kernels', { timeout: 240_000 }, () => {
  const browser = firefox();

  test('every kernel equals ggml\u2019s reference in Firefox; the detection picks the variant Firefox runs exactly', async (t) => {
    const page = await newPage(browser());
    await page.goto('about:blank');
    await page.addScriptTag({ content: await harness() });
    const relaxed = await page.evaluate(() => WebAssembly.validate((window as unknown as { kernels: Kernels }).kernels.RELAXED_PROBE));
    const variant = await page.evaluate(() => (window as unknown as { kernels: Kernels }).kernels.wasmVariant());
    // Firefox ESR here validates relaxed SIMD or not; the choice follows it, and is relaxed only with exact sums.
    assert.equal(variant, relaxed ? 'relaxed' : 'simd128');
    t.diagnostic(`Firefox runs the ${variant} variant`);
    if (relaxed) assert.equal(await page.evaluate(() => (window as unknown as { kernels: Kernels }).kernels.relaxedDotExact()), true);
    for (const file of FILES) {
      if (file.endsWith('relaxed') && !relaxed) continue;
      const bytes = [...readFileSync(join(REPO_ROOT, `scripts/wasm-kernels/kernels-${file}.wasm`))];
      const { dots, fp16 } = await page.evaluate(async (b) => {
        const k = (window as unknown as { kernels: Kernels }).kernels;
        const module = Uint8Array.from(b);
        return { dots: await k.checkDots(module), fp16: await k.checkFp16(module) };
      }, bytes);
      assert.equal(dots.length, 159, file);
      assert.equal(dots.filter((r) => r.exact).length, 48, file);
      assert.deepEqual(dots.filter((r) => !(Math.abs(r.got - r.want) <= r.tolerance)), [], file);
      assert.ok(dots.filter((r) => r.want !== 0).length > 150, file);
      assert.deepEqual(fp16, { ggml_cpu_fp16_to_fp32: { checked: 65541, wrong: [] }, ggml_fp16_to_fp32_row: { checked: 65541, wrong: [] } }, file);
    }
  });
});
