// The playground's key. The service stores only hashes, so a full key the page may use must come from the
// person: either a dedicated "Playground" key made on request, or one they paste. It is kept for this tab's
// session only (sessionStorage: gone when the tab closes), never in IndexedDB, and dropped once revoked.
import { createKey, verifyKey } from '../../keys/key-store';
import { displayForm, isWellFormedKey } from '../../keys/key-format';
import { getState, setState, type SessionKey } from './store';

const STORAGE_KEY = 'inpage:playground-key';

/** Keeps `value` as this session's playground key (or forgets it). */
export function save(value: SessionKey | null): void {
  try {
    if (value) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(value));
    else sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // Storage refused (private mode quotas): the key lives in memory for this page only.
  }
  setState({ sessionKey: value });
}

/** Makes a new key named "Playground" reaching every model and keeps it for this session. */
export async function createPlaygroundKey(): Promise<SessionKey> {
  const created = await createKey({ name: 'Playground' });
  const value = { key: created.key, id: created.record.id, display: created.record.display, name: created.record.name };
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

export function forgetSessionKey(): void {
  save(null);
}

/** Restores this session's key, if it is still live; call again whenever keys change. */
export async function checkSessionKey(): Promise<void> {
  let value = getState().sessionKey;
  if (!value) {
    try {
      const stored = sessionStorage.getItem(STORAGE_KEY);
      value = stored ? (JSON.parse(stored) as SessionKey) : null;
    } catch {
      value = null;
    }
  }
  if (!value) return;
  const verdict = await verifyKey(value.key);
  if (verdict.ok) {
    if (getState().sessionKey?.key !== value.key) setState({ sessionKey: value });
  } else {
    save(null);
  }
}
