// The provider's page, embedded by a consumer or visited at top level. The test drives it through `window.saa`;
// the button is the user's gesture (a real click) that calls requestStorageAccess with `saa.types`.
/* eslint-disable */
const query = location.search;
let handle = null;
let nextId = 0;

function ask(port, message, transfer = []) {
  const id = ++nextId;
  return new Promise((ok) => {
    const listener = (event) => {
      if (event.data && event.data.id === id) {
        port.removeEventListener('message', listener);
        ok(event.data.result);
      }
    };
    port.addEventListener('message', listener);
    if (port.start) port.start();
    port.postMessage({ ...message, id }, transfer);
  });
}

function storageOf(which) {
  if (which === 'handle') return { indexedDB: handle.indexedDB, caches: handle.caches, getDirectory: () => handle.getDirectory(), locks: handle.locks };
  return globalStorage();
}

let dedicated = null;
let shared = null;
const heldLocks = new Map();
const channels = new Map();

window.saa = {
  types: { all: true },
  request: null,
  /** Sets the types the next click asks for. */
  prepare(types) {
    window.saa.types = types;
    window.saa.request = null;
  },
  async hasStorageAccess() {
    return document.hasStorageAccess();
  },
  async permission() {
    return (await navigator.permissions.query({ name: 'storage-access' })).state;
  },
  /**
   * requestStorageAccess(types) once the frame has no transient activation (it lasts seconds after a gesture,
   * and the test's own calls may give one); says whether the call was made without it.
   */
  async requestWithoutActivation(types) {
    const started = Date.now();
    while (navigator.userActivation.isActive && Date.now() - started < 10_000) await new Promise((ok) => setTimeout(ok, 100));
    const activeAtCall = navigator.userActivation.isActive;
    return { ...(await window.saa.requestNow(types)), activeAtCall };
  },
  /** requestStorageAccess(types) now, whatever the frame's activation. */
  async requestNow(types) {
    try {
      handle = await document.requestStorageAccess(types);
      return { ok: true, handle: Object.prototype.toString.call(handle) };
    } catch (err) {
      return { ok: false, error: `${err.name}: ${err.message}` };
    }
  },
  isTop: () => window.top === window,
  env: async () => ({ ...isolationProbe(), gpu: await gpuProbe(), saa: typeof document.requestStorageAccess, userAgent: navigator.userAgent }),
  write: (which, token) => writeAll(storageOf(which), token),
  read: (which) => readAll(storageOf(which)),
  /** Holds a lock named `name` until release(name). */
  async hold(which, name) {
    const locks = which === 'handle' ? handle.locks : navigator.locks;
    await new Promise((held) => {
      locks.request(
        name,
        () =>
          new Promise((release) => {
            heldLocks.set(name, release);
            held();
          }),
      );
    });
    return 'held';
  },
  release(name) {
    heldLocks.get(name)?.();
    heldLocks.delete(name);
  },
  async heldLocks(which) {
    const locks = which === 'handle' ? handle.locks : navigator.locks;
    return (await locks.query()).held.map((l) => l.name);
  },
  listen(which, name) {
    const channel = which === 'handle' ? handle.BroadcastChannel(name) : new BroadcastChannel(name);
    const got = [];
    channel.onmessage = (event) => got.push(event.data);
    channels.set(`${which}:${name}`, { channel, got });
  },
  heard(which, name) {
    return channels.get(`${which}:${name}`)?.got ?? null;
  },
  broadcast(which, name, message) {
    const channel = which === 'handle' ? handle.BroadcastChannel(name) : new BroadcastChannel(name);
    channel.postMessage(message);
    channel.close();
  },
  /** A dedicated worker of this frame, asked `message`. */
  async dedicated(message) {
    dedicated ??= new Worker(`worker.js${query}`);
    return ask(dedicated, message);
  },
  /** Passes the handle's OPFS root to the dedicated worker with `message` (readDir, readDirSync, writeDir, keepDir). */
  async dedicatedWithHandleDir(message) {
    try {
      const dir = await handle.getDirectory();
      dedicated ??= new Worker(`worker.js${query}`);
      return await ask(dedicated, { ...message, dir });
    } catch (err) {
      return failure(err);
    }
  },
  /** Posts a tick to the parent every 100 ms: the consumer sees whether this frame still runs. */
  startTicks() {
    setInterval(() => window.parent.postMessage({ type: 'inpage-provider-tick' }, '*'), 100);
  },
  /** The provider's SharedWorker: from the handle ('handle'), or the page's own constructor ('plain'). */
  async shared(which, message, options = { name: 'engine' }) {
    if (!shared) {
      try {
        shared = which === 'handle' ? handle.SharedWorker(`shared.js${query}`, options) : new SharedWorker(`shared.js${query}`, options);
      } catch (err) {
        return failure(err);
      }
      shared.onerror = (event) => console.log('shared worker error', event.message);
    }
    return ask(shared.port, message);
  },
  /**
   * Hands the consumer page a MessagePort onto the SharedWorker (or the dedicated worker): a channel whose one
   * end the worker adopts and whose other end goes to the parent window (another origin) by postMessage.
   */
  async offerPort(which = 'shared') {
    const channel = new MessageChannel();
    const worker = which === 'shared' ? shared.port : (dedicated ??= new Worker(`worker.js${query}`));
    const adopted = await ask(worker, { op: 'adopt' }, [channel.port2]);
    window.parent.postMessage({ type: 'inpage-provider-port' }, '*', [channel.port1]);
    return adopted;
  },
};

document.querySelector('#ask').addEventListener('click', () => {
  window.saa.request = (async () => {
    try {
      handle = await document.requestStorageAccess(window.saa.types);
      return { ok: true, handle: Object.prototype.toString.call(handle) };
    } catch (err) {
      return { ok: false, error: `${err.name}: ${err.message}` };
    }
  })();
});
