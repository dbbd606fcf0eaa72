// The SIMD kernels spliced into llama.cpp's wasm (scripts/wasm-kernels), in Firefox ESR: each kernel against ggml's
// scalar reference (test/kernels/kernel-check.ts, bundled here for the page), in both memory models, SIMD128 and
// relaxed SIMD where Firefox runs it; and the variant the run-time detection (wasm-detect.ts) picks in Firefox.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KERNEL_FILES, assertKernelResults, checkKernelFileInPage, detectInPage, kernelFileBytes, kernelHarness } from '../kernels/harness';
import { firefox, newPage } from './firefox';

describe('Firefox ESR, wasm kernels', { timeout: 240_000 }, () => {
  const browser = firefox();

  test('every kernel equals ggml\u2019s reference in Firefox; the detection picks the variant Firefox runs exactly', async (t) => {
    const page = await newPage(browser());
    await page.goto('about:blank');
    await page.addScriptTag({ content: await kernelHarness() });
    const detected = await page.evaluate(detectInPage);
    // Firefox ESR here validates relaxed SIMD or not; the choice follows it, and is relaxed only with exact sums.
    assert.equal(detected.simd128, true);
    assert.deepEqual(
      { variant: detected.variant, exact: detected.exact },
      detected.relaxed ? { variant: 'relaxed', exact: true } : { variant: 'simd128', exact: null },
    );
    t.diagnostic(`Firefox runs the ${detected.variant} variant`);
    for (const file of KERNEL_FILES) {
      if (file.endsWith('relaxed') && !detected.relaxed) continue;
      assertKernelResults(file, await page.evaluate(checkKernelFileInPage, kernelFileBytes(file)));
    }
  });
});
