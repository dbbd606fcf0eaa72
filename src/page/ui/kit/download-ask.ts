// Before a download: how big it is and where it comes from (asked of the engine, which measures it small),
// and, over 100 MB, asking the person once per model before it starts (from the Models area and when a
// Playground message would start it). The answer is remembered in this browser, per model.
import { h } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { DownloadSize, ModelStatus } from '#shared/wire/engine-port';
import type { ModelId } from '#shared/variants';
import { cardOf, cardTitle } from '../../model-cards';
import { formatBytes } from './format';
import { getState } from '../store';

/** Downloads above this ask first. */
const ASK_ABOVE_BYTES = 100 * 1000 * 1000;
const APPROVED_KEY = 'inpage.downloads-approved';

/** The size as a person reads it: "1.19 GiB", "about 1.19 GiB", or that it is not known yet. */
export function sizeText(size: DownloadSize | null | undefined): string {
  if (size === undefined) return 'Checking…';
  if (!size || size.bytes === null) return 'size unknown until download starts';
  return `${size.basis === 'table' ? 'about ' : ''}${formatBytes(size.bytes)}`;
}

/** Where the figure comes from, in words: "weights and model library, from the model's manifest on huggingface.co". */
export function sizeSource(size: ShownSize | null | undefined): string {
  if (!size) return '';
  const from = size.host ? ` from ${size.host}` : '';
  const what = size.covers ? `${size.covers}${from}` : from.trim();
  if (size.bytes === null) return size.host ? `the files come from ${size.host}` : '';
  if (size.earlier) return `${what}; measured on an earlier visit`;
  if (size.basis === 'manifest') return `${what}; by the model’s manifest`;
  if (size.basis === 'server') return `${what}; as the server states it`;
  if (size.basis === 'table') return `${what}; the published size`;
  return what;
}

/** A size as the page shows it: `earlier` when measured on an earlier visit (the engine cannot measure it now). */
export type ShownSize = DownloadSize & { earlier?: boolean };

const sizes = new Map<ModelId, Promise<ShownSize | null>>();
const MEASURED_KEY = 'inpage.download-sizes';

/** Sizes measured earlier (manifest or server), by the engine's model id: what offline can still tell. */
function measured(): Record<string, DownloadSize> {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(MEASURED_KEY) ?? '{}');
    return value && typeof value === 'object' ? (value as Record<string, DownloadSize>) : {};
  } catch {
    return {};
  }
}

/**
 * Keeps a size measured now, or gives the one measured on an earlier visit when the engine cannot measure it
 * now (offline): `fresh` says which.
 */
function withMemory(id: ModelId, size: DownloadSize | null): { size: ShownSize | null; fresh: boolean } {
  const name = getState().models?.find((m) => m.id === id)?.modelId;
  const now = size !== null && size.bytes !== null;
  if (!name || !size) return { size, fresh: now };
  if (now && size.basis !== 'table') {
    try {
      localStorage.setItem(MEASURED_KEY, JSON.stringify({ ...measured(), [name]: size }));
    } catch {
      // No storage: nothing remembered.
    }
    return { size, fresh: true };
  }
  const earlier = measured()[name];
  if (!earlier || typeof earlier.bytes !== 'number' || earlier.host !== size.host) return { size, fresh: now };
  return { size: { ...earlier, earlier: true }, fresh: false };
}

/** The engine's figure for a download of `id` (kept for the page once measured); null without an engine here. */
function downloadSizeOf(id: ModelId): Promise<ShownSize | null> {
  const control = getState().engine?.control;
  if (!control) return Promise.resolve(null);
  let size = sizes.get(id);
  if (!size) {
    const asked = control.downloadSize(id).then(
      (s) => withMemory(id, s),
      () => ({ size: null, fresh: false }),
    );
    // Not measured now (offline, say): asked again next time.
    void asked.then((a) => !a.fresh && sizes.delete(id));
    size = asked.then((a) => a.size);
    sizes.set(id, size);
  }
  return size;
}

/** The download size of a model that is not downloaded, for its card (undefined while asking). */
export function useDownloadSize(id: ModelId, wanted: boolean): ShownSize | null | undefined {
  const [size, setSize] = useState<ShownSize | null | undefined>(undefined);
  const hasEngine = getState().engine !== null;
  useEffect(() => {
    if (!wanted) return;
    let live = true;
    setSize(undefined);
    const ask = () => void downloadSizeOf(id).then((s) => live && setSize(s));
    ask();
    // Offline, the size is unknown; back online, it can be found.
    window.addEventListener('online', ask);
    return () => {
      live = false;
      window.removeEventListener('online', ask);
    };
  }, [id, wanted, hasEngine]);
  return size;
}

/** Per model: the engine's model id when it names one, else the variant. */
function approvalName(status: ModelStatus): string {
  return status.modelId ?? status.id;
}

function approvedList(): string[] {
  try {
    const list: unknown = JSON.parse(localStorage.getItem(APPROVED_KEY) ?? '[]');
    return Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

function remember(name: string): void {
  try {
    localStorage.setItem(APPROVED_KEY, JSON.stringify([...new Set([...approvedList(), name])]));
  } catch {
    // No storage: it asks again next time.
  }
}

interface Question {
  id: ModelId;
  name: string;
  title: string | null;
  size: ShownSize | null;
  answer: (yes: boolean) => void;
}

let question: Question | null = null;
const listeners = new Set<() => void>();
const changed = () => listeners.forEach((l) => l());

/**
 * Resolves true when `id` may download now: it is not about to download, its download is at most 100 MB, or the
 * person said yes (now or before, for this model). False when they cancelled.
 */
export async function approveDownload(id: ModelId): Promise<boolean> {
  const status = getState().models?.find((m) => m.id === id);
  if (!status || status.state !== 'not_downloaded') return true;
  const name = approvalName(status);
  if (approvedList().includes(name)) return true;
  const size = await downloadSizeOf(id);
  if (size && size.bytes !== null && size.bytes <= ASK_ABOVE_BYTES) return true;
  // One question at a time: a second one waits for the first to be answered.
  while (question)
    await new Promise<void>((ok) =>
      listeners.add(function done() {
        if (!question) {
          listeners.delete(done);
          ok();
        }
      }),
    );
  const card = cardOf(status);
  return new Promise<boolean>((resolve) => {
    question = {
      id,
      name,
      title: card ? cardTitle(card) : (status.modelId ?? null),
      size,
      answer: (yes) => {
        if (yes) remember(name);
        question = null;
        changed();
        resolve(yes);
      },
    };
    changed();
  });
}

/** The question, as a modal dialog (focus inside, Escape cancels); mounted once by the app. */
export function DownloadDialog() {
  const [, setVersion] = useState(0);
  const dialog = useRef<HTMLDialogElement>(null);
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const listener = () => setVersion((v) => v + 1);
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  const q = question;
  const opener = useRef<Element | null>(null);
  useEffect(() => {
    const el = dialog.current;
    if (!el) return;
    if (q && !el.open) {
      // The element that asked, taken before the dialog moves focus to its own button (taken after, it was
      // that button, and focus came back only where the browser restores it by itself).
      opener.current = document.activeElement;
      el.showModal();
      confirm.current?.focus();
    } else if (!q && el.open) {
      el.close();
      if (opener.current instanceof HTMLElement && opener.current.isConnected && !el.contains(opener.current)) opener.current.focus();
    }
  }, [q]);
  const size = q?.size;
  return h(
    'dialog',
    {
      ref: dialog,
      class: 'download-dialog card',
      'aria-labelledby': 'download-dialog-title',
      'aria-describedby': 'download-dialog-text',
      // Escape: the browser closes the dialog; that is a no.
      onCancel: (e: Event) => {
        e.preventDefault();
        q?.answer(false);
      },
    },
    q &&
      h(
        'div',
        null,
        h('h2', { id: 'download-dialog-title' }, `Download ${q.title ?? q.id}?`),
        h(
          'div',
          { id: 'download-dialog-text' },
          h(
            'p',
            { 'data-testid': 'download-dialog-size' },
            size && size.bytes !== null
              ? [`${q.id} needs a download of `, h('strong', null, sizeText(size)), ` (${sizeSource(size)}).`]
              : [`${q.id} needs a download whose size is not known until it starts`, size?.host ? `; the files come from ${size.host}.` : '.'],
          ),
          h('p', null, 'It is stored in this browser and used offline afterwards; you are asked once for this model.'),
        ),
        h(
          'div',
          { class: 'actions' },
          h('button', { type: 'button', class: 'button primary', ref: confirm, onClick: () => q.answer(true) }, 'Download'),
          h('button', { type: 'button', class: 'button', onClick: () => q.answer(false) }, 'Cancel'),
        ),
      ),
  );
}
