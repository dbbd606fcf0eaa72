// `npm run models:pull` against a local static server holding generated model files; then the app's own origin
// serves the pulled folder exactly where the engine looks for it (the configured model source).
import { execFile } from 'node:child_process';
import { DEFAULT_CATALOG } from '#shared/model-config';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from '@playwright/test';
import { recordFor } from '../../worker/engine/webllm/models';
import { fakeModel, sha256, writeHosted } from './fake-model';
import { REPO_ROOT, serveStatic, TEST_BUILD_DIR } from './static-server';

const run = promisify(execFile);

async function pullCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['scripts/models-pull.mjs', ...args], { cwd: REPO_ROOT });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

test('models:pull downloads the variants’ files, resumes without fetching shards again, and the app serves them as its model source', async ({ page }) => {
  const dir = await mkdtemp(join(tmpdir(), 'inpage-pull-'));
  const model = fakeModel('Qwen3-1.7B-q4f16_1-MLC');
  await writeHosted(join(dir, 'host'), model);
  const host = await serveStatic(4578, { '/': join(dir, 'host') });
  const out = join(dir, 'out');
  const args = [
    'svc-model-5.2-short',
    'svc-model-5.2-short-fast', // same weights: pulled once
    '--precision',
    'f16',
    '--out',
    out,
    '--source',
    `${host.origin}/hf`,
    '--lib-source',
    `${host.origin}/libs`,
    '--engine',
    'webllm',
  ];
  try {
    const first = await pullCli(args);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('"modelBaseUrl": "/models"');
    expect(first.stdout).toContain('"integrity"');
    for (const [name, content] of model.files) {
      expect(sha256(await readFile(join(out, model.modelId, 'resolve', 'main', name))), name).toBe(sha256(content));
    }
    expect(sha256(await readFile(join(out, 'libs', model.lib)))).toBe(sha256(model.libBytes));
    const shardRequests = () => host.requests.filter((r) => r.includes('params_shard_')).length;
    expect(shardRequests()).toBe(3);

    // Again: complete shards are kept, only the small files that say what is current are fetched.
    const second = await pullCli(args);
    expect(second.code, second.stderr).toBe(0);
    expect(shardRequests()).toBe(3);
  } finally {
    await host.close();
  }

  // The app's origin serves the folder at /models, configured as the model source in inpage.config.json.
  const app = await serveStatic(4579, { '/': TEST_BUILD_DIR, '/models': out });
  try {
    await page.goto(`${app.origin}/?engine=off`);
    await page.evaluate(async () => void (await window.inpageReady));
    // The URLs the engine gives web-llm for this configuration (web-llm appends resolve/main/ to the model URL).
    const record = recordFor(DEFAULT_CATALOG, model.modelId, { modelBaseUrl: '/models', modelLibBaseUrl: '/models/libs' }, app.origin);
    const urls: [string, string][] = [...model.files.keys()].map((name) => [name, `${record.model}/resolve/main/${name}`]);
    urls.push([model.lib, record.model_lib]);
    const served = await page.evaluate(async (urls) => {
      const hex = (buf: ArrayBuffer) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, '0')).join('');
      const out: Record<string, string> = {};
      for (const [name, url] of urls) {
        const res = await fetch(url);
        out[name] = res.ok ? hex(await crypto.subtle.digest('SHA-256', await res.arrayBuffer())) : `HTTP ${res.status}`;
      }
      return out;
    }, urls);
    for (const [name, content] of model.files) expect(served[name], name).toBe(sha256(content));
    expect(served[model.lib]).toBe(sha256(model.libBytes));
  } finally {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('models:pull takes an older ndarray-cache.json, and fails clearly on a missing shard', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'inpage-pull-'));
  const legacy = fakeModel('Qwen3-8B-q4f32_1-MLC', { legacyManifest: true, shardBytes: 10_000 });
  await writeHosted(join(dir, 'host'), legacy);
  const host = await serveStatic(4580, { '/': join(dir, 'host') });
  try {
    const ok = await pullCli([
      'svc-model-5.2',
      '--precision',
      'f32',
      '--out',
      join(dir, 'out'),
      '--source',
      `${host.origin}/hf`,
      '--lib-source',
      `${host.origin}/libs`,
      '--engine',
      'webllm',
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    // web-llm 0.2.86 reads tensor-cache.json: the old manifest is kept under that name.
    const saved = await readFile(join(dir, 'out', legacy.modelId, 'resolve', 'main', 'tensor-cache.json'));
    expect(sha256(saved)).toBe(sha256(legacy.files.get('ndarray-cache.json')!));

    await rm(join(dir, 'host', 'hf', legacy.modelId, 'resolve', 'main', 'params_shard_1.bin'));
    const broken = await pullCli([
      'svc-model-5.2',
      '--precision',
      'f32',
      '--out',
      join(dir, 'out2'),
      '--source',
      `${host.origin}/hf`,
      '--lib-source',
      `${host.origin}/libs`,
      '--engine',
      'webllm',
    ]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('models:pull failed: HTTP 404');
    expect(broken.stderr).toContain('params_shard_1.bin');

    const usage = await pullCli(['svc-model-9', '--out', join(dir, 'out3')]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("Unknown variant 'svc-model-9'");
  } finally {
    await host.close();
    await rm(dir, { recursive: true, force: true });
  }
});
