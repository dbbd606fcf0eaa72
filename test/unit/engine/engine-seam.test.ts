// The Engine seam's defaults (worker/engine/capabilities.ts `complete`): an engine that has only the required core.
import { describe, expect, it } from 'vitest';
import { ApiError } from '#shared/protocol/errors';
import type { Engine } from '../../../worker/engine/engine';
import { Unsupported, complete } from '../../../worker/engine/capabilities';
import { Scheduler, type RequestSink } from '../../../worker/engine/scheduler';
import { RoutingEngine } from '../../../worker/engine/routing';
import type { Side } from '../../../worker/engine/engine';

const bare: Engine = {
  generate: async () => ({ fingerprint: 'fp_bare', events: (async function* () {})() }),
  status: () => [],
  onStatus: () => undefined,
};

describe('complete(): the defaults of the optional capabilities, in one place', () => {
  it('says which capabilities the engine has, and fills in the rest', async () => {
    const full = complete({ ...bare, cachedModels: async () => ['own'] });
    expect([...full.has]).toEqual(['cachedModels']);
    expect(await full.cachedModels()).toEqual(['own']);
    expect(await full.downloadSize('svc-model-5.2')).toEqual({ bytes: null, basis: 'unknown', host: '' });
    expect(full.runtime()).toBeUndefined();
    expect(await full.adapter()).toMatchObject({ available: false, features: [], shaderF16: false });
    await expect(full.load('svc-model-5.2')).resolves.toBeUndefined();
    expect(complete(full)).toBe(full);
  });

  it('refuses what it cannot do with the typed answer: 400 invalid_value naming the capability', async () => {
    const full = complete(bare);
    const err = await full.importFiles([]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Unsupported);
    expect(err).toMatchObject({ capability: 'importFiles', status: 400, code: 'invalid_value', message: 'This engine cannot import model files.' });
    const embed = await full.embed({ model: 'svc-embed', input: ['a'] } as never, new AbortController().signal).catch((e: unknown) => e);
    expect(embed).toMatchObject({ capability: 'embed', status: 400, code: 'invalid_value', param: 'model' });
  });

  it('the scheduler refuses an embeddings request to an engine without embed before it queues', () => {
    const errors: ApiError[] = [];
    const sink: RequestSink = {
      accepted: () => errors.push(new ApiError('internal_error', 'accepted')),
      start: () => undefined,
      event: () => undefined,
      end: () => undefined,
      error: (e) => errors.push(e),
    };
    new Scheduler(bare, 4).submit('e', { kind: 'embeddings', model: 'svc-embed', input: ['a'] } as never, sink);
    expect(errors.map((e) => [e.code, e.message])).toEqual([['invalid_value', "This engine cannot create embeddings ('svc-embed')."]]);
  });
});

describe("RoutingEngine: what a composite does not route is the device engine's, delegated by one list", () => {
  class Composite extends RoutingEngine {
    route(): readonly Side[] {
      return this.local.route({} as never);
    }
    status() {
      return [];
    }
    onStatus() {}
  }

  it('delegates each capability to the device engine and has every one', async () => {
    const loads: string[] = [];
    const composite = new Composite({
      ...bare,
      load: async (id) => void loads.push(id),
      cachedModels: async () => ['local'],
      downloadSize: async () => ({ bytes: 7, basis: 'server', host: 'h' }),
    });
    await composite.load('svc-model-5.2');
    expect(loads).toEqual(['svc-model-5.2']);
    expect(await composite.downloadSize('svc-model-5.2')).toEqual({ bytes: 7, basis: 'server', host: 'h' });
    expect(await composite.cachedModels()).toEqual(['local']);
    // The device engine's defaults, through the delegates.
    expect(await composite.importFiles([]).catch((e: unknown) => e)).toBeInstanceOf(Unsupported);
    expect([...complete(composite).has].sort()).toEqual([
      'adapter',
      'cachedModels',
      'deleteFromCache',
      'downloadSize',
      'embed',
      'importFiles',
      'load',
      'ready',
      'rescan',
      'route',
      'runtime',
      'supports',
      'unload',
    ]);
    // Called directly, generate runs on the first side: the device engine's.
    const generation = await composite.generate({} as never, new AbortController().signal);
    expect(generation.fingerprint).toBe('fp_bare');
  });
});
