// provider.html: a model provider deployment of inpage (docs/shared-models.md).
// - Framed by a consumer site: asks the browser for the provider's unpartitioned storage (the Storage Access
//   API's non-cookie extension), asks the person once per site, runs the engine in a worker whose model files
//   live in the provider's first-party OPFS, and offers the consumer page a port its service worker uses like
//   a hosting tab's. Every request that crosses it is checked against the consent list (relay.ts).
// - At top level: the provider's own page, where the person sees the sites and revokes them.
import * as Comlink from 'comlink';
import { DEFAULT_CONFIG, fetchDeploymentConfig, mergeConfig, type InpageConfig } from '../config';
import { buildCatalog } from '../model-config';
import type { EngineControl } from '../engine-control';
import { ConsentStore, refusal, type Consent } from './consent';
import { HELLO, OFFER, REFUSED, WAITING, messageType, type ControlMessage, type ControlReply, type FrameMessage } from './messages';
import { relay } from './relay';
import { modelBoxes, showConsents } from './consent-page';

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

/** The provider's deployment: its config, and the ids whose models it keeps (an upstream-only id has none). */
async function deployment(origin: string): Promise<{ config: InpageConfig; ids: string[] }> {
  const config = mergeConfig({ ...DEFAULT_CONFIG }, await fetchDeploymentConfig(origin));
  return { config, ids: buildCatalog(config.models).variants.filter((v) => v.engine !== 'upstream').map((v) => v.id) };
}

/** One checkbox per model id, all ticked; `onChange` hears the ticked ids. */
function modelChoices(ids: string[], onChange: (ticked: string[]) => void): { element: HTMLFieldSetElement; ticked: () => string[] } {
  const fieldset = document.createElement('fieldset');
  fieldset.id = 'models';
  const legend = document.createElement('legend');
  legend.textContent = 'Models it may run';
  fieldset.append(legend);
  const boxes = modelBoxes(fieldset, ids, () => true);
  const ticked = () => boxes.filter((b) => b.checked).map((b) => b.value);
  fieldset.addEventListener('change', () => onChange(ticked()));
  return { element: fieldset, ticked };
}

function button(id: string, text: string, onClick: () => void): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.id = id;
  b.textContent = text;
  b.addEventListener('click', onClick, { once: true });
  return b;
}

/** requestStorageAccess(TYPES); the handle, or why there is none. */
async function askBrowser(): Promise<{ handle: StorageAccessHandle } | { why: string }> {
  const request = (document as { requestStorageAccess?: (types?: object) => Promise<unknown> }).requestStorageAccess;
  if (typeof request !== 'function') return { why: 'this browser has no Storage Access API' };
  try {
    const handle = (await request.call(document, TYPES)) as StorageAccessHandle | undefined;
    // The extension is detected by what comes back: Firefox resolves with undefined (cookies only).
    if (!handle || typeof handle !== 'object' || !('indexedDB' in handle)) return { why: 'this browser gives no storage handle (the Storage Access API opens cookies only here)' };
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
  private deployment: { config: InpageConfig; ids: string[] } | null = null;

  constructor(private readonly consumer: string) {}

  private post(message: FrameMessage, ports: MessagePort[] = []): void {
    parent.postMessage(message, this.consumer, ports);
  }

  private get consents(): ConsentStore {
    return new ConsentStore(this.handle!.indexedDB);
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
    if (this.handle) {
      const consent = await this.consents.get(this.consumer);
      if (consent?.state === 'granted') return this.connect();
      if (consent) return this.refuse(refusal(consent)!);
    }
    this.ask();
  }

  /** The person's click is both the gesture the browser needs and the consent the provider records. */
  private ask(): void {
    const ids = this.deployment!.ids;
    const allow = button('allow', 'Use the models this browser already has', () => {
      const ticked = choices.ticked();
      // Every model ticked: every model the provider offers, later ones too.
      void this.allow(ticked.length === ids.length ? null : ticked);
    });
    const choices = modelChoices(ids, (ticked) => (allow.disabled = ticked.length === 0));
    say(
      `Let ${this.consumer} use the AI models this browser already has (kept by ${this.provider})? It can run them, nothing else.`,
      choices.element,
      allow,
      button('refuse', 'Not for this site', () => void this.refuseSite()),
    );
    this.post({ type: WAITING, why: `the model provider ${this.provider} waits for a click in its frame to let this site use its models`, height: document.documentElement.scrollHeight });
  }

  private async allow(models: string[] | null): Promise<void> {
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
    this.refuse('the person said no in the provider\'s frame');
  }

  private async connect(): Promise<void> {
    say(`${this.consumer} uses the models this browser has.`);
    const handle = this.handle!;
    const worker = new Worker(new URL('../../worker/engine/engine-worker.ts', import.meta.url), { type: 'module', name: 'inpage-provider-engine' });
    const engine = Comlink.wrap<EngineControl>(worker);
    this.engine = engine;
    // A worker that cannot start (its script blocked, e.g. served without the isolation its frame has) says so.
    const failed = new Promise<never>((_, reject) =>
      worker.addEventListener('error', (event) => reject(new Error(`the provider's engine worker failed to start${event.message ? `: ${event.message}` : ' (its script could not be loaded)'}`)), { once: true }),
    );
    await Promise.race([
      (async () => {
        await engine.useStorage(await handle.getDirectory());
        await engine.init(this.deployment!.config);
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
    relay(consumer, toEngine.port2, this.provider, () => this.consents.get(this.consumer), (why, model) => {
      if (model === undefined) say(`${this.consumer} no longer uses this browser's models: ${why}.`);
      control.postMessage({ type: REFUSED, why, ...(model !== undefined ? { model } : {}) } satisfies ControlReply);
    });
  }
}

if (window.top === window) {
  void deployment(location.origin).then(({ ids }) => showConsents(main, new ConsentStore(indexedDB), ids));
} else {
  say('Waiting for the page that embeds this frame…');
  let frame: Frame | null = null;
  window.addEventListener('message', (event) => {
    // One consumer per frame: the first hello from the parent names it.
    if (frame || event.source !== parent || messageType(event.data) !== HELLO) return;
    frame = new Frame(event.origin);
    void frame.start().catch((err: unknown) => {
      const why = `the provider's frame failed (${err instanceof Error ? err.message : String(err)})`;
      say(why);
      parent.postMessage({ type: REFUSED, why } satisfies FrameMessage, event.origin);
    });
  });
}

export type { Consent };
