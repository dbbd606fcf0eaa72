// provider.html: a model provider deployment of inpage (docs/shared-models.md).
// - Framed by a consumer site: asks the browser for the provider's unpartitioned storage (the Storage Access
//   API's non-cookie extension), asks the person once per site, runs the engine in a worker whose model files
//   live in the provider's first-party OPFS, and offers the consumer page a port its service worker uses like
//   a hosting tab's. Every request that crosses it is checked against the consent list (relay.ts).
// - At top level: the provider's own page, where the person sees the sites and revokes them.
import * as Comlink from 'comlink';
import { configUrl } from '#shared/base-path';
import { DEFAULT_CONFIG, fetchDeploymentConfig, mergeConfig, type InpageConfig } from '#shared/config';
import { buildCatalog, type ModelCatalog } from '#shared/model-config';
import type { EngineControl } from '#shared/wire/engine-control';
import { ConsentStore, localIds, refusal } from './consent';
import { HELLO, OFFER, REFUSED, WAITING, messageType, type ControlMessage, type ControlReply, type FrameMessage } from '#shared/wire/provider-messages';
import { relay } from './relay';
import { showConsents } from './consent-page';
import { question, secureConsumer, tracksVisibility, watchVisibility } from './question';

interface Deployment {
  config: InpageConfig;
  catalog: ModelCatalog;
  ids: string[];
}

/** What the frame asks the browser for: the stores the engine and the consent list use; never cookies. */
const TYPES = { indexedDB: true, caches: true, getDirectory: true, locks: true, SharedWorker: true } as const;

/** The parts of a StorageAccessHandle used here (Chromium 125+; not a global type in TypeScript's DOM lib). */
interface StorageAccessHandle {
  indexedDB: IDBFactory;
  getDirectory(): Promise<FileSystemDirectoryHandle>;
}

const main = document.getElementById('provider')!;

function say(text: string, ...rest: HTMLElement[]): void {
  const p = document.createElement('p');
  p.textContent = text;
  main.replaceChildren(p, ...rest);
}

/** The provider's deployment: its config, its catalog, and the ids it runs locally (the only ones a consumer may). */
async function deployment(origin: string): Promise<Deployment> {
  const config = mergeConfig({ ...DEFAULT_CONFIG }, await fetchDeploymentConfig(configUrl(new URL(import.meta.env.BASE_URL, origin))));
  const catalog = buildCatalog(config.models);
  return { config, catalog, ids: localIds(catalog) };
}

/** requestStorageAccess(TYPES); the handle, or why there is none. */
async function askBrowser(): Promise<{ handle: StorageAccessHandle } | { why: string }> {
  const request = (document as { requestStorageAccess?: (types?: object) => Promise<unknown> }).requestStorageAccess;
  if (typeof request !== 'function') return { why: 'this browser has no Storage Access API' };
  try {
    const handle = (await request.call(document, TYPES)) as StorageAccessHandle | undefined;
    // The extension is detected by what comes back: Firefox resolves with undefined (cookies only).
    if (!handle || typeof handle !== 'object' || !('indexedDB' in handle))
      return { why: 'this browser gives no storage handle (the Storage Access API opens cookies only here)' };
    return { handle };
  } catch (err) {
    return { why: `the browser refused storage access (${err instanceof Error ? `${err.name}: ${err.message}` : String(err)})` };
  }
}

async function permissionGranted(): Promise<boolean> {
  try {
    return (await navigator.permissions.query({ name: 'storage-access' as PermissionName })).state === 'granted';
  } catch {
    return false;
  }
}

class Frame {
  private handle: StorageAccessHandle | null = null;
  private engine: Comlink.Remote<EngineControl> | null = null;
  private readonly provider = location.origin;
  private deployment: Deployment | null = null;

  constructor(private readonly consumer: string) {}

  private post(message: FrameMessage, ports: MessagePort[] = []): void {
    parent.postMessage(message, this.consumer, ports);
  }

  private get consents(): ConsentStore {
    return new ConsentStore(this.handle!.indexedDB, this.deployment!.ids);
  }

  private refuse(why: string): void {
    say(`${this.consumer} does not use this browser's models: ${why}.`);
    this.post({ type: REFUSED, why });
  }

  async start(): Promise<void> {
    this.deployment = await deployment(this.provider);
    if (await permissionGranted()) {
      const got = await askBrowser();
      if ('handle' in got) this.handle = got.handle;
    }
    if (this.handle && (await this.decided())) return;
    if (tracksVisibility()) this.ask();
    else this.askAtTopLevel();
  }

  /** Acts on the site's record, if the person decided already: serves it, or refuses. False: no record. */
  private async decided(): Promise<boolean> {
    const consent = await this.consents.get(this.consumer);
    if (consent?.state === 'granted') await this.connect();
    else if (consent) this.refuse(refusal(consent)!);
    return consent !== null;
  }

  private waiting(): void {
    this.post({
      type: WAITING,
      why: `the model provider ${this.provider} waits for a click in its frame to let this site use its models`,
      height: document.documentElement.scrollHeight,
    });
  }

  /**
   * The question in the frame. The click on its answer is both the gesture the browser needs and the consent the
   * provider records, so it counts only while the browser verifies the question is visible (IntersectionObserver
   * v2): not through a frame made see-through, covered, or shown under the pointer a moment before.
   */
  private ask(): void {
    const visibility = watchVisibility(main);
    main.replaceChildren(
      ...question(this.consumer, this.provider, this.deployment!.ids, { allow: (ids) => void this.allow(ids), refuse: () => void this.refuseSite() }, () =>
        visibility.seen(),
      ),
    );
    this.waiting();
  }

  /**
   * A browser that cannot tell whether the frame is visible: the question is asked on the provider's own page at top
   * level, which no site can cover. The frame's button only asks the browser for storage access and reads what the
   * person decided there; it records nothing.
   */
  private askAtTopLevel(): void {
    const link = document.createElement('a');
    link.id = 'decide';
    link.href = `/provider.html?site=${encodeURIComponent(this.consumer)}`;
    link.target = '_blank';
    link.rel = 'noopener';
    link.textContent = `Decide on ${this.provider}'s page`;
    const use = document.createElement('button');
    use.type = 'button';
    use.id = 'use';
    use.textContent = 'Use the models I allowed there';
    use.addEventListener('click', () => void this.useDecided());
    say(
      `${this.consumer} asks to use the AI models this browser already has (kept by ${this.provider}). This browser cannot show that this question is not covered, so it is asked on the provider's own page.`,
      link,
      use,
    );
    this.waiting();
  }

  private async useDecided(): Promise<void> {
    if (!this.handle) {
      const got = await askBrowser();
      if ('why' in got) return this.refuse(got.why);
      this.handle = got.handle;
    }
    if (!(await this.decided()))
      say(`Nothing is decided for ${this.consumer} yet: decide on ${this.provider}'s page first.`, ...main.querySelectorAll<HTMLElement>('#decide, #use'));
  }

  private async allow(models: string[]): Promise<void> {
    if (!this.handle) {
      const got = await askBrowser();
      if ('why' in got) return this.refuse(got.why);
      this.handle = got.handle;
    }
    await this.consents.set(this.consumer, 'granted', models);
    await this.connect();
  }

  private async refuseSite(): Promise<void> {
    if (this.handle) await this.consents.set(this.consumer, 'refused');
    this.refuse("the person said no in the provider's frame");
  }

  private async connect(): Promise<void> {
    say(`${this.consumer} uses the models this browser has.`);
    const handle = this.handle!;
    const worker = new Worker(new URL('../../worker/engine/engine-worker.ts', import.meta.url), { type: 'module', name: 'inpage-provider-engine' });
    const engine = Comlink.wrap<EngineControl>(worker);
    this.engine = engine;
    // A worker that cannot start (its script blocked, e.g. served without the isolation its frame has) says so.
    const failed = new Promise<never>((_, reject) =>
      worker.addEventListener(
        'error',
        (event) =>
          reject(new Error(`the provider's engine worker failed to start${event.message ? `: ${event.message}` : ' (its script could not be loaded)'}`)),
        { once: true },
      ),
    );
    await Promise.race([
      (async () => {
        // useStorage makes it a provider's engine: local models only, never an upstream (nor the config's).
        await engine.useStorage(await handle.getDirectory());
        await engine.init({ ...this.deployment!.config, upstreams: {} });
      })(),
      failed,
    ]);
    const control = new MessageChannel();
    control.port1.onmessage = (event) => {
      const message = event.data as ControlMessage;
      if (message?.type === 'ping') control.port1.postMessage({ type: 'pong', id: message.id } satisfies ControlReply);
      else if (message?.type === 'port' && event.ports[0]) this.serve(event.ports[0], control.port1);
    };
    const first = new MessageChannel();
    this.serve(first.port1, control.port1);
    this.post({ type: OFFER }, [first.port2, control.port2]);
  }

  /** Relays `consumer` (a consumer service worker's end) to a new engine port. */
  private serve(consumer: MessagePort, control: MessagePort): void {
    const toEngine = new MessageChannel();
    void this.engine!.connect(Comlink.transfer(toEngine.port1, [toEngine.port1]));
    const { catalog, ids } = this.deployment!;
    relay({
      consumer,
      engine: toEngine.port2,
      provider: this.provider,
      catalog,
      localIds: ids,
      check: () => this.consents.get(this.consumer),
      onRefused: (why, model) => {
        if (model === undefined) say(`${this.consumer} no longer uses this browser's models: ${why}.`);
        control.postMessage({ type: REFUSED, why, ...(model !== undefined ? { model } : {}) } satisfies ControlReply);
      },
    });
  }
}

/** At top level with `?site=<origin>`: the question for that site, asked here (a browser without IntersectionObserver v2). */
async function askHere(site: string): Promise<void> {
  const { ids } = await deployment(location.origin);
  const store = new ConsentStore(indexedDB, ids);
  const done = (text: string) => say(`${text} You can close this page and go back to ${site}.`);
  main.replaceChildren(
    ...question(site, location.origin, ids, {
      allow: (chosen) => void store.set(site, 'granted', chosen).then(() => done(`${site} may use the models you ticked.`)),
      refuse: () => void store.set(site, 'refused').then(() => done(`${site} does not use this browser's models.`)),
    }),
  );
}

if (window.top === window) {
  const site = new URLSearchParams(location.search).get('site');
  if (site !== null && secureConsumer(site)) void askHere(site);
  else if (site !== null)
    say(`${site} cannot be asked about: a site that uses this browser's models must be https (or plain http on this machine, in development).`);
  else void deployment(location.origin).then(({ ids }) => showConsents(main, new ConsentStore(indexedDB, ids), ids));
} else {
  say('Waiting for the page that embeds this frame…');
  let frame: Frame | null = null;
  window.addEventListener('message', (event) => {
    // One consumer per frame: the first hello from the parent names it.
    if (frame || event.source !== parent || messageType(event.data) !== HELLO) return;
    // An opaque origin ('null': a sandboxed frame, a data: page) cannot be answered or recorded; plain http off this
    // machine could be anyone on the network path. Neither is asked.
    if (!secureConsumer(event.origin)) {
      const why = `a site that uses this browser's models must be https (or plain http on this machine, in development), not ${event.origin}`;
      say(`Not offered: ${why}.`);
      if (event.origin !== 'null') parent.postMessage({ type: REFUSED, why } satisfies FrameMessage, event.origin);
      return;
    }
    frame = new Frame(event.origin);
    void frame.start().catch((err: unknown) => {
      const why = `the provider's frame failed (${err instanceof Error ? err.message : String(err)})`;
      say(why);
      parent.postMessage({ type: REFUSED, why } satisfies FrameMessage, event.origin);
    });
  });
}
