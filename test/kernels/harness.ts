// kernel-check.ts and worker/engine/llamacpp/wasm-detect.ts bundled as one classic script that sets `window.kernels`,
// for the browsers driven from Node (Firefox: test/firefox/wasm-kernels.test.ts; WebKit: test/webkit/llamacpp.test.ts),
// whose pages cannot import the repository's modules. Also what a page's `window.kernels` holds, and the committed
// kernel files' bytes as arrays (the form a driver's evaluate carries).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KernelResult } from './kernel-check';
import { REPO_ROOT } from '../browser/static-server';

/** The harness's script. */
export async function kernelHarness(): Promise<string> {
  const { build } = await import('rolldown');
  const dir = await mkdtemp(join(tmpdir(), 'inpage-kernels-'));
  try {
    const entry = join(dir, 'entry.ts');
    await writeFile(
      entry,
      [
        `export * from ${JSON.stringify(join(REPO_ROOT, 'test/kernels/kernel-check.ts'))};`,
        `export * from ${JSON.stringify(join(REPO_ROOT, 'worker/engine/llamacpp/wasm-detect.ts'))};`,
      ].join('\n'),
    );
    await build({ input: entry, platform: 'browser', logLevel: 'silent', output: { file: join(dir, 'h.js'), format: 'iife', name: 'kernels' } });
    return await readFile(join(dir, 'h.js'), 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `window.kernels` in a page that ran the harness. */
interface Kernels {
  checkDots(bytes: Uint8Array): Promise<KernelResult[]>;
  checkFp16(bytes: Uint8Array): Promise<Record<string, { checked: number; wrong: number[] }>>;
  wasmVariant(): string;
  relaxedDotExact(): boolean;
  SIMD128_PROBE: Uint8Array<ArrayBuffer>;
  RELAXED_PROBE: Uint8Array<ArrayBuffer>;
}

/** The kernel files of scripts/wasm-kernels, by memory and variant. */
export const KERNEL_FILES = ['wasm64-simd128', 'wasm64-relaxed', 'wasm32-simd128', 'wasm32-relaxed'] as const;

/** A kernel file's bytes as an array of numbers. */
export function kernelFileBytes(file: (typeof KERNEL_FILES)[number]): number[] {
  return [...readFileSync(join(REPO_ROOT, `scripts/wasm-kernels/kernels-${file}.wasm`))];
}

/** In the page (self-contained, for a driver's evaluate): every kernel of one file against the references. */
export async function checkKernelFileInPage(bytes: number[]): Promise<{ dots: KernelResult[]; fp16: Record<string, { checked: number; wrong: number[] }> }> {
  const k = (window as unknown as { kernels: Kernels }).kernels;
  const module = Uint8Array.from(bytes);
  return { dots: await k.checkDots(module), fp16: await k.checkFp16(module) };
}

/** In the page (self-contained): what the detection reads there, and the variant it picks. */
export function detectInPage(): { simd128: boolean; relaxed: boolean; exact: boolean | null; variant: string } {
  const k = (window as unknown as { kernels: Kernels }).kernels;
  const relaxed = WebAssembly.validate(k.RELAXED_PROBE);
  let exact: boolean | null = null;
  try {
    if (relaxed) exact = k.relaxedDotExact();
  } catch {
    exact = false;
  }
  return { simd128: WebAssembly.validate(k.SIMD128_PROBE), relaxed, exact, variant: k.wasmVariant() };
}

/** The results of one kernel file as every browser must give them (as test/unit/engine/wasm-kernels.browser.test.ts asks of Chromium). */
export function assertKernelResults(file: string, { dots, fp16 }: Awaited<ReturnType<typeof checkKernelFileInPage>>): void {
  assert.equal(dots.length, 491, file);
  assert.equal(dots.filter((r) => r.nrc === 2).length, 332, file);
  assert.equal(new Set(dots.filter((r) => r.nrc === 2).map((r) => `${r.kernel} ${r.slot}`)).size, 16, file);
  assert.equal(dots.filter((r) => r.exact).length, 96, file);
  assert.deepEqual(
    dots.filter((r) => !(Math.abs(r.got - r.want) <= r.tolerance)),
    [],
    file,
  );
  assert.ok(dots.filter((r) => r.want !== 0).length > 450, file);
  assert.deepEqual(fp16, { ggml_cpu_fp16_to_fp32: { checked: 65541, wrong: [] }, ggml_fp16_to_fp32_row: { checked: 65541, wrong: [] } }, file);
}
