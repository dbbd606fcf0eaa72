// The playground's key. The service stores only hashes, so a full key the page may use must come from the
// person: the workspace's one "Playground" key, made on request, or a key they paste.
// - The Playground key is made once per workspace and kept in this origin's localStorage (as the embedding
//   library keeps its app key), so every tab and every visit reuses it instead of piling up new keys. It is
//   made again only when it was revoked or deleted.
// - A pasted key (or one handed over from API Keys) is kept for this tab's session only (sessionStorage).
// Neither is ever written to IndexedDB, and either is dropped as soon as it is revoked anywhere.
import { createKey, verifyKey } from '#shared/keys/key-store';
import { displayForm, isWellFormedKey } from '#shared/keys/key-format';
import { getState, setState, type SessionKey } from './store';

const SESSION_STORAGE_KEY = 'inpage:playground-key';
const PLAYGROUND_KEY_NAME = 'Playground';

/** Where the workspace's Playground key is kept: one per workspace (organisation id). */
function playgroundSlot(): string | null {
  const org = getState().workspace?.orgId;
  return org ? `inpage:playground-key:${org}` : null;
}

function read(storage: Storage, slot: string | null): SessionKey | null {
  if (!slot) return null;
  try {
    const stored = storage.getItem(slot);
    return stored ? (JSON.parse(stored) as SessionKey) : null;
  } catch {
    return null;
  }
}

function write(storage: Storage, slot: string | null, value: SessionKey | null): void {
  if (!slot) return;
  try {
    if (value) storage.setItem(slot, JSON.stringify(value));
    else storage.removeItem(slot);
  } catch {
    // Storage refused (private mode quotas): the key lives in memory for this page only.
  }
}

/** Keeps `value` as this tab's playground key (or forgets it for this tab). */
export function save(value: SessionKey | null): void {
  write(sessionStorage, SESSION_STORAGE_KEY, value);
  setState({ sessionKey: value });
}

/**
 * The workspace's Playground key: the one already made (kept in localStorage) while it is live, else a new
 * key named "Playground" reaching every model. Used by this tab from now on.
 */
export async function createPlaygroundKey(): Promise<SessionKey> {
  const slot = playgroundSlot();
  const kept = read(localStorage, slot);
  if (kept && (await verifyKey(kept.key)).ok) {
    save(kept);
    return kept;
  }
  const created = await createKey({ name: PLAYGROUND_KEY_NAME });
  const value = { key: created.key, id: created.record.id, display: created.record.display, name: created.record.name };
  write(localStorage, slot, value);
  save(value);
  return value;
}

/** Adopts a key the person pasted, after checking it is a live key of this workspace. */
export async function usePastedKey(raw: string): Promise<SessionKey> {
  const key = raw.trim();
  if (!isWellFormedKey(key)) throw new Error('That is not an inpage key: keys look like sk-svc- followed by 43 characters.');
  const verdict = await verifyKey(key);
  if (!verdict.ok) {
    throw new Error(verdict.reason === 'revoked' ? `Key ${displayForm(key)} has been revoked.` : `Key ${displayForm(key)} is not a key of this workspace.`);
  }
  const value = { key, id: verdict.record.id, display: verdict.record.display, name: verdict.record.name };
  save(value);
  return value;
}

/** Marks a tab whose person chose no key, so the workspace's Playground key is not taken up again on reload. */
const FORGOTTEN = 'forgotten';

/** This tab stops using its key (the workspace's Playground key stays, for the next "Use the Playground key"). */
export function forgetSessionKey(): void {
  save(null);
  try {
    sessionStorage.setItem(SESSION_STORAGE_KEY, FORGOTTEN);
  } catch {
    // Not remembered across reloads; fine.
  }
}

/** Whether the workspace has a live Playground key this tab could use (kept by an earlier tab or visit). */
export function keptPlaygroundKey(): SessionKey | null {
  return read(localStorage, playgroundSlot());
}

/** Restores this tab's key, if it is still live, and drops a kept Playground key that was revoked; call again whenever keys change. */
export async function checkSessionKey(): Promise<void> {
  const slot = playgroundSlot();
  const kept = read(localStorage, slot);
  if (kept && !(await verifyKey(kept.key)).ok) write(localStorage, slot, null);
  let tabChoice: string | null = null;
  try {
    tabChoice = sessionStorage.getItem(SESSION_STORAGE_KEY);
  } catch {
    // No storage: nothing was chosen.
  }
  // A tab that never chose takes up the workspace's Playground key, so new tabs and visits reuse it.
  const fromTab = tabChoice && tabChoice !== FORGOTTEN ? read(sessionStorage, SESSION_STORAGE_KEY) : null;
  const value = getState().sessionKey ?? fromTab ?? (tabChoice === null ? read(localStorage, slot) : null);
  if (!value) return;
  const verdict = await verifyKey(value.key);
  if (verdict.ok) {
    if (getState().sessionKey?.key !== value.key) setState({ sessionKey: value });
  } else {
    save(null);
  }
}
