// Hybrid (docs/hybrid.md): upstream connections a person adds in the workspace — a server's base URL, their own key,
// and per id the server's model name and the mode — kept in this origin's IndexedDB (database `inpage-upstreams`,
// never in a file any visitor downloads). Afterwards the key is shown only in display form (`sk-…abcd`). The engine
// worker reads them when it starts and again when told they changed, and sends the key as `Authorization: Bearer …` to
// that server only. What any script of the origin can read: docs/security.md.
import type { DBSchema } from 'idb';
import { connection } from './idb-connection';
import { DIALECTS, type Dialect, type UpstreamSpec, DEFAULT_BOUNDS, DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT_MS, upstreamUrl } from './upstreams';
import { HYBRID_MODES, ModelConfigError, type HybridMode } from './model-config';

export interface UpstreamConnection {
  /** 1–64 letters, digits or . _ -: names it in messages, headers and /v1/models (`connection:<name>`). */
  name: string;
  url: string;
  dialect: Dialect;
  /** The person's own key for that server; empty for a server without one (a local Ollama). */
  key: string;
  /** Per inpage id: the server's model name and the mode (default `prefer-local`). */
  models: Record<string, { model: string; mode?: HybridMode }>;
  created: number;
}

/** A person's choice of mode for an id the deployment's config routes to an upstream (the Models area's switch). */
export interface ModeChoice {
  id: string;
  mode: HybridMode;
}

interface Schema extends DBSchema {
  connections: { key: string; value: UpstreamConnection };
  modes: { key: string; value: ModeChoice };
}

const db = connection<Schema>('inpage-upstreams', 2, (database) => {
  if (!database.objectStoreNames.contains('connections')) database.createObjectStore('connections', { keyPath: 'name' });
  if (!database.objectStoreNames.contains('modes')) database.createObjectStore('modes', { keyPath: 'id' });
});

/**
 * The channel on which the page tells the engine worker that the person's connections or mode choices changed: it
 * reads them again and applies them to the next request, without a reload.
 */
export const UPSTREAM_CHOICES_CHANNEL = 'inpage-upstream-modes';

function tellEngine(): void {
  if (typeof BroadcastChannel === 'undefined') return;
  const channel = new BroadcastChannel(UPSTREAM_CHOICES_CHANNEL);
  channel.postMessage('changed');
  channel.close();
}

export async function listModeChoices(): Promise<ModeChoice[]> {
  try {
    return await (await db.get()).getAll('modes');
  } catch {
    return [];
  }
}

/** Keeps the person's mode for `id` (null: back to the deployment's), and tells the engine worker. */
export async function chooseMode(id: string, mode: HybridMode | null): Promise<void> {
  if (mode !== null && !(HYBRID_MODES as readonly string[]).includes(mode)) throw new ModelConfigError(`mode: one of ${HYBRID_MODES.join(', ')}`);
  const database = await db.get();
  if (mode === null) await database.delete('modes', id);
  else await database.put('modes', { id, mode });
  tellEngine();
}

/** The key as the workspace shows it after it was saved: its first four and last four characters. */
export function displayKey(key: string): string {
  if (key === '') return '(none)';
  return key.length <= 10 ? '…' : `${key.slice(0, 4)}…${key.slice(-4)}`;
}

/** Checks a connection as a person typed it; throws a ModelConfigError naming the field. */
export function checkConnection(raw: Omit<UpstreamConnection, 'created'>, origin: string): Omit<UpstreamConnection, 'created'> {
  if (!/^[A-Za-z0-9][\w.-]{0,63}$/.test(raw.name)) throw new ModelConfigError('name: 1–64 letters, digits or . _ - starting with a letter or digit');
  const url = upstreamUrl(raw.url, 'url', origin);
  if (!(DIALECTS as readonly string[]).includes(raw.dialect)) throw new ModelConfigError(`dialect: one of ${DIALECTS.join(', ')}`);
  const models: UpstreamConnection['models'] = {};
  for (const [id, m] of Object.entries(raw.models)) {
    if (!m.model) throw new ModelConfigError(`models.${id}: give the server's name for the model`);
    if (m.mode !== undefined && !(HYBRID_MODES as readonly string[]).includes(m.mode))
      throw new ModelConfigError(`models.${id}.mode: one of ${HYBRID_MODES.join(', ')}`);
    models[id] = { model: m.model, ...(m.mode ? { mode: m.mode } : {}) };
  }
  return { name: raw.name, url, dialect: raw.dialect, key: raw.key.trim(), models };
}

export async function listConnections(): Promise<UpstreamConnection[]> {
  try {
    return await (await db.get()).getAll('connections');
  } catch {
    return [];
  }
}

export async function hasConnections(): Promise<boolean> {
  return (await listConnections()).length > 0;
}

export async function saveConnection(raw: Omit<UpstreamConnection, 'created'>, origin: string): Promise<UpstreamConnection> {
  const checked = { ...checkConnection(raw, origin), created: Date.now() };
  await (await db.get()).put('connections', checked);
  tellEngine();
  return checked;
}

export async function removeConnection(name: string): Promise<void> {
  await (await db.get()).delete('connections', name);
  tellEngine();
}

/** A connection as an upstream the engine sends to: `connection:<name>`, with the person's key. */
export function connectionSpec(c: UpstreamConnection): UpstreamSpec {
  return {
    name: `connection:${c.name}`,
    url: c.url,
    dialect: c.dialect,
    credentials: 'omit',
    concurrency: DEFAULT_CONCURRENCY,
    timeoutMs: DEFAULT_TIMEOUT_MS,
    ...DEFAULT_BOUNDS,
    ...(c.key ? { key: c.key } : {}),
  };
}
