// The local workspace: one per origin, made by the beta sign-up. Its org id is every model's `owned_by`.
import { openDatabase, type WorkspaceRecord } from './db';
import { recordTime } from '../record-time';

function orgId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `org-${Array.from(bytes, (b) => b.toString(36).padStart(2, '0').slice(-2)).join('')}`;
}

export async function getWorkspace(): Promise<WorkspaceRecord | null> {
  const db = await openDatabase();
  return (await db.get('workspace', 'current')) ?? null;
}

/** Registers the workspace; a second call returns the existing one unchanged. */
export async function registerWorkspace(name: string): Promise<WorkspaceRecord> {
  const trimmed = name.trim();
  if (!trimmed) throw new Error('A workspace needs a name.');
  // Before the transaction, which would end while the time is asked for.
  const createdAt = await recordTime();
  const db = await openDatabase();
  const tx = db.transaction('workspace', 'readwrite');
  const existing = await tx.store.get('current');
  const record = existing ?? { id: 'current', name: trimmed, orgId: orgId(), createdAt };
  if (!existing) await tx.store.add(record);
  await tx.done;
  return record;
}

export async function requireWorkspace(): Promise<WorkspaceRecord> {
  const workspace = await getWorkspace();
  if (!workspace) throw new Error('Register the workspace before making API keys.');
  return workspace;
}
