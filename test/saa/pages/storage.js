// The storage probes the provider's frame, its dedicated worker and its SharedWorker share (a classic script:
// a <script> in the page, importScripts in the workers). `s` names the storage to use: the global one, or a
// StorageAccessHandle's ({indexedDB, caches, getDirectory}).
/* eslint-disable */
const SAA_DB = 'saa-probe';
const SAA_CACHE = 'saa-probe';
const SAA_FILE = 'saa-probe.txt';

function globalStorage() {
  return { indexedDB: self.indexedDB, caches: self.caches, getDirectory: () => navigator.storage.getDirectory(), locks: navigator.locks };
}

function idbOpen(factory) {
  return new Promise((ok, fail) => {
    const req = factory.open(SAA_DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore('kv');
    req.onsuccess = () => ok(req.result);
    req.onerror = () => fail(req.error);
  });
}

async function idbPut(factory, value) {
  const db = await idbOpen(factory);
  await new Promise((ok, fail) => {
    const tx = db.transaction('kv', 'readwrite');
    tx.objectStore('kv').put(value, 'token');
    tx.oncomplete = () => ok();
    tx.onerror = () => fail(tx.error);
  });
  db.close();
}

async function idbGet(factory) {
  const db = await idbOpen(factory);
  const value = await new Promise((ok, fail) => {
    const req = db.transaction('kv').objectStore('kv').get('token');
    req.onsuccess = () => ok(req.result ?? null);
    req.onerror = () => fail(req.error);
  });
  db.close();
  return value;
}

async function opfsPut(dir, value) {
  const file = await dir.getFileHandle(SAA_FILE, { create: true });
  const writable = await file.createWritable();
  await writable.write(value);
  await writable.close();
}

async function opfsGet(dir) {
  try {
    const file = await dir.getFileHandle(SAA_FILE);
    return await (await file.getFile()).text();
  } catch (err) {
    if (err && err.name === 'NotFoundError') return null;
    throw err;
  }
}

function failure(err) {
  return `error ${err && err.name}: ${err && err.message}`;
}

async function settle(fn) {
  try {
    return await fn();
  } catch (err) {
    return failure(err);
  }
}

/** Writes `token` to IndexedDB, Cache Storage and OPFS of `s`; says what each write did ('ok' or the error). */
async function writeAll(s, token) {
  return {
    idb: await settle(async () => (await idbPut(s.indexedDB, token), 'ok')),
    cache: await settle(async () => (await (await s.caches.open(SAA_CACHE)).put('/saa-probe', new Response(token)), 'ok')),
    opfs: await settle(async () => (await opfsPut(await s.getDirectory(), token), 'ok')),
  };
}

/** The token each of IndexedDB, Cache Storage and OPFS of `s` holds (null: none). */
async function readAll(s) {
  return {
    idb: await settle(() => idbGet(s.indexedDB)),
    cache: await settle(async () => {
      const hit = await (await s.caches.open(SAA_CACHE)).match('/saa-probe');
      return hit ? await hit.text() : null;
    }),
    opfs: await settle(async () => opfsGet(await s.getDirectory())),
  };
}

/** WebGPU here: an adapter and a device, or why not. */
async function gpuProbe() {
  if (!('gpu' in navigator)) return 'no navigator.gpu';
  try {
    const adapter = await navigator.gpu.requestAdapter();
    if (!adapter) return 'no adapter (requestAdapter gave null)';
    const device = await adapter.requestDevice();
    const info = adapter.info || {};
    device.destroy();
    return `device (${info.vendor || '?'}, ${info.architecture || '?'})`;
  } catch (err) {
    return failure(err);
  }
}

/** What wllama's threads need: cross-origin isolation and a SharedArrayBuffer. */
function isolationProbe() {
  let sab = false;
  try {
    sab = typeof SharedArrayBuffer === 'function' && new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }).buffer instanceof SharedArrayBuffer;
  } catch {
    sab = false;
  }
  return { crossOriginIsolated: self.crossOriginIsolated === true, sharedMemory: sab };
}

/** An OPFS directory handle a worker was given to keep (`keepDir`), for later requests on any port. */
let keptDir = null;

async function readSync(dir) {
  const access = await (await dir.getFileHandle(SAA_FILE)).createSyncAccessHandle();
  const bytes = new Uint8Array(access.getSize());
  access.read(bytes, { at: 0 });
  access.close();
  return new TextDecoder().decode(bytes);
}

/** A worker's answer to one request `{op, ...}` on a port (shared by worker.js and shared.js). */
async function workerAnswer(data) {
  switch (data.op) {
    case 'keepDir':
      keptDir = data.dir;
      return 'kept';
    case 'readKeptDirSync':
      return settle(() => readSync(keptDir));
    case 'writeDir':
      // Writes through a directory handle from the frame's StorageAccessHandle.
      return settle(async () => (await opfsPut(data.dir, data.token), 'ok'));
    case 'read':
      return readAll(globalStorage());
    case 'write':
      return writeAll(globalStorage(), data.token);
    case 'readDir':
      // An OPFS directory handle the frame got from its StorageAccessHandle, passed by postMessage.
      return settle(() => opfsGet(data.dir));
    case 'readDirSync':
      // The same, through a synchronous access handle (what an engine reading model files in a worker uses).
      return settle(() => readSync(data.dir));
    case 'locks':
      return settle(async () => (await navigator.locks.query()).held.map((l) => l.name));
    case 'env':
      return { ...isolationProbe(), gpu: await gpuProbe(), origin: self.origin };
    default:
      return `unknown op ${data.op}`;
  }
}

/**
 * Answers requests on `port`, and on every port passed to it with `{op: 'adopt'}` (the one a frame hands to a
 * consumer page); `extra(data)` answers ops of the worker's own first (undefined: not one of them).
 */
function servePort(port, extra = () => undefined) {
  port.onmessage = async (event) => {
    const data = event.data;
    if (data.op === 'adopt') {
      servePort(event.ports[0], extra);
      port.postMessage({ id: data.id, result: 'adopted' });
      return;
    }
    const own = extra(data);
    port.postMessage({ id: data.id, result: own !== undefined ? own : await workerAnswer(data) });
  };
  if (port.start) port.start();
}
