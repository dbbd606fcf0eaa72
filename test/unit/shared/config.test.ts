import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_CONFIG, loadConfig, refusedUrlSettings, TEST_KNOBS, urlSettings } from '#shared/config';

const at = (search: string) => ({ origin: 'https://app.example', search }) as Location;

function serveDeployment(body: unknown) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } })),
  );
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('settings come from the deployment, never from the page URL', () => {
  it("ignores every deployment setting in the URL and keeps the deployment's values", async () => {
    serveDeployment({ modelBaseUrl: 'https://models.example', queueDepth: 3, engineHeartbeatMs: 700 });
    const config = await loadConfig(at('?modelBaseUrl=http://127.0.0.2/w&modelLibBaseUrl=http://127.0.0.2/lib&engineHeartbeatMs=1&queueDepth=0&gpuMemoryMB=1'));
    expect(config).toMatchObject({ modelBaseUrl: 'https://models.example', modelLibBaseUrl: '', queueDepth: 3, engineHeartbeatMs: 700, gpuMemoryMB: 0 });
  });

  it('names what it ignored, once each, and nothing harmless', () => {
    expect(refusedUrlSettings('?engine=off&modelLibBaseUrl=x&queueDepth=0&queueDepth=1&utm_source=mail')).toEqual(['modelLibBaseUrl', 'queueDepth']);
    expect(refusedUrlSettings('?engine=off&tokenDelayMs=5')).toEqual([]);
    expect(refusedUrlSettings('')).toEqual([]);
  });

  it('lets the test build take its knobs from the URL (vitest runs in test mode), and nothing else', async () => {
    expect(TEST_KNOBS).toEqual(['tokenDelayMs', 'pretendWeightsBytes', 'cpuMemoryMiB', 'webllmFake']);
    expect(urlSettings('?tokenDelayMs=5&queueDepth=0&modelBaseUrl=x')).toEqual({ tokenDelayMs: '5' });
    expect(urlSettings('?pretendWeightsBytes=200000000')).toEqual({ pretendWeightsBytes: '200000000' });
    expect(urlSettings('?cpuMemoryMiB=4096')).toEqual({ cpuMemoryMiB: '4096' });
    serveDeployment({});
    expect(await loadConfig(at('?tokenDelayMs=5&queueDepth=0'))).toEqual({ ...DEFAULT_CONFIG, tokenDelayMs: 5 });
  });

  it('a missing, broken or non-object config file leaves the defaults', async () => {
    for (const body of [null, [1, 2], 'text']) {
      serveDeployment(body);
      expect(await loadConfig(at(''))).toEqual(DEFAULT_CONFIG);
    }
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response('nope', { status: 404 })),
    );
    expect(await loadConfig(at(''))).toEqual(DEFAULT_CONFIG);
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new TypeError('offline'))),
    );
    expect(await loadConfig(at('?queueDepth=0'))).toEqual(DEFAULT_CONFIG);
  });

  it('ignores inherited names (no prototype tricks) in the deployment file', async () => {
    serveDeployment(JSON.parse('{"__proto__": {"queueDepth": 0}, "constructor": 1}'));
    expect(await loadConfig(at(''))).toEqual(DEFAULT_CONFIG);
  });
});

describe("the settings file lives at the app's base", () => {
  it('is read at the base, and a missing file is said once in the console', async () => {
    const { fetchDeploymentConfig } = await import('#shared/config');
    const { configUrl } = await import('#shared/base-path');
    const fetched: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => (fetched.push(url), new Response('nope', { status: 404 }))),
    );
    const info = vi.spyOn(console, 'info').mockImplementation(() => undefined);
    const url = configUrl('https://app.example/app/');
    expect(await fetchDeploymentConfig(url)).toEqual({});
    expect(await fetchDeploymentConfig(url)).toEqual({});
    expect(fetched).toEqual(['https://app.example/app/inpage.config.json', 'https://app.example/app/inpage.config.json']);
    expect(info.mock.calls.map((c) => String(c[0]))).toEqual([
      'inpage: no settings file at https://app.example/app/inpage.config.json (HTTP 404): the default settings apply (docs/configuration.md).',
    ]);
    info.mockRestore();
  });
});
