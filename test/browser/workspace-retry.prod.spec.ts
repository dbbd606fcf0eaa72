// Retry that really loads (production build): the failed-download sequence offline, then the files reachable
// and Retry loads a working model that answers in the Playground. web-llm cannot finish a load here (no real
// model library can be generated), so the deployment runs llama.cpp (`engineChoice: "llamacpp"`) with a tiny
// GGUF synthesized at test time (scripts/gguf/synthesize.ts), served with the app by a local "deployment".
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect, test } from '@playwright/test';
import { synthesizeGguf } from '../../scripts/gguf/synthesize';
import { GGUF_DEFAULTS } from '../../worker/engine/llamacpp/models';
import { formatBytes } from '../../src/page/ui/kit/format';
import { PROD_BUILD_DIR, serveStatic } from './static-server';
import { goToArea, openChatSettings, openWorkspace, playgroundKey, registerThroughForm, screens } from './workspace-steps';

const pathOf = (group: string) => `${GGUF_DEFAULTS[group]!.repo}/resolve/main/${GGUF_DEFAULTS[group]!.file}`;

test('a failed download offline, then Retry with the files reachable loads the model, and it answers in the Playground', async ({ browser }) => {
  test.setTimeout(180_000);
  const dir = await mkdtemp(join(tmpdir(), 'inpage-retry-'));
  const model = synthesizeGguf({ seed: 11 });
  await mkdir(dirname(join(dir, pathOf('qwen3-1.7b'))), { recursive: true });
  await writeFile(join(dir, pathOf('qwen3-1.7b')), model.bytes);
  const server = await serveStatic(4598, { '/': PROD_BUILD_DIR, '/gguf': dir });
  server.override('/inpage.config.json', JSON.stringify({ engineChoice: 'llamacpp', ggufBaseUrl: '/gguf', engineHeartbeatMs: 0 }));
  const host = new URL(server.origin).host;
  const context = await browser.newContext({ baseURL: server.origin });
  try {
    const page = await context.newPage();
    await openWorkspace(page);
    await registerThroughForm(page);
    await goToArea(page, 'Models');
    const card = page.locator('article[data-model="svc-model-5.2-short"]');
    await expect(card).toHaveAttribute('data-state', 'not_downloaded');
    // The size before download: the length the server gives for the GGUF (a HEAD request), nothing fetched.
    await expect(card.getByTestId('download-size')).toHaveText(`${formatBytes(model.bytes.length)} (model file from ${host}; as the server states it)`);
    expect(server.gets.filter((p) => p.startsWith('/gguf/'))).toEqual([]);
    // Its card names the model and its GGUF file; a model whose file this host lacks shows the published size.
    await expect(card.getByTestId('model-name')).toHaveText('Qwen3 1.7B · 4-bit');
    await expect(card.getByText(`(${GGUF_DEFAULTS['qwen3-1.7b']!.file})`)).toBeVisible();
    await expect(page.locator('article[data-model="svc-vision"]').getByTestId('download-size')).toHaveText(
      `about ${formatBytes(GGUF_DEFAULTS['phi-3.5-vision']!.bytes)} (model and vision projector files from ${host}; the published size)`,
    );
    // Qwen3-8B's GGUF does not fit this device's memory: its card says so and offers no download.
    const big = page.locator('article[data-model="svc-model-5.2"]');
    await expect(big).toHaveAttribute('data-state', 'unavailable');
    await expect(big.getByTestId('unavailable')).toContainText('do not fit the memory this device can give a model');
    await expect(big.getByTestId('download-size')).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Download and load svc-model-5.2', exact: true })).toHaveCount(0);

    // Offline: one error in plain words, the detail folded, Retry and Import beside it.
    await context.setOffline(true);
    await page.getByRole('button', { name: 'Download and load svc-model-5.2-short', exact: true }).click();
    const error = page.getByTestId('load-error');
    await expect(error).toHaveCount(1);
    await expect(card.getByTestId('load-error')).toBeVisible();
    await expect(error.locator('.plain')).toHaveText(`Could not reach ${host}: this device seems to be offline.`);
    await expect(error.locator('.detail-text')).toBeHidden();
    await error.getByText('Technical detail').click();
    await expect(error.locator('.detail-text')).toContainText('svc-model-5.2-short');
    await expect(error.getByRole('button', { name: 'Import from a folder' })).toBeVisible();
    // svc-embed, which llama.cpp cannot serve, says so on its card: no failure, nothing to retry.
    await expect(page.locator('article[data-model="svc-embed"]').getByTestId('unavailable')).toContainText('svc-embed runs on web-llm (WebGPU) only');
    await expect(card).toHaveAttribute('data-state', 'not_downloaded');
    await screens(page, 'models-llamacpp-offline');

    // The files reachable again: Retry downloads and loads the model.
    await context.setOffline(false);
    await error.getByRole('button', { name: 'Retry loading svc-model-5.2-short' }).click();
    await expect(card.getByTestId('state')).toHaveText('Ready', { timeout: 120_000 });
    await expect(page.getByTestId('load-error')).toHaveCount(0);
    await expect(card.getByTestId('size')).toHaveText(formatBytes(model.bytes.length));
    expect(server.gets).toContain(`/gguf/${pathOf('qwen3-1.7b')}`);

    // And it answers: a Playground message to the loaded model streams a reply.
    await goToArea(page, 'Playground');
    await playgroundKey(page);
    await page.getByLabel('Model').selectOption('svc-model-5.2-short-fast');
    await openChatSettings(page);
    await page.getByText('Parameters').click();
    await page.getByLabel('Max tokens').fill('8');
    await page.getByLabel('Message').fill('Hello');
    await page.getByRole('button', { name: 'Send' }).click();
    const answer = page.locator('.turn.assistant').first();
    await expect(answer).toHaveAttribute('data-status', 'done', { timeout: 60_000 });
    await expect(answer.locator('.markdown').last()).toHaveText(/\S/);
    await expect(page.getByRole('dialog')).toHaveCount(0);
  } finally {
    await context.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
});
