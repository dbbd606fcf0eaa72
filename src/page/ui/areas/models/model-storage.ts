// In the Models area: this origin's storage (quota, use, persistence) and importing models from a folder on disk.
import { h } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ImportProgress, ImportReport } from '../../../model-import';
import type { StorageReport } from '../../../storage';
import { formatBytes } from '../../kit/format';
import { useUi } from '../../store';
import { Notice, errorText } from '../../kit/widgets';

function StoragePanel() {
  const ui = useUi();
  const api = ui.api;
  const [report, setReport] = useState<StorageReport | null>(null);
  const [asking, setAsking] = useState(false);
  const [denied, setDenied] = useState(false);
  // Read again whenever a model changes state (a download finished, a model was deleted or imported).
  const states = ui.models?.map((m) => m.state).join() ?? '';
  useEffect(() => {
    if (!api) return;
    let live = true;
    api.storage.report().then(
      (r) => live && setReport(r),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [api, states]);
  if (!api || !report) return null;
  if (!report.supported) {
    return h(
      'section',
      { class: 'card storage', 'aria-labelledby': 'storage-title' },
      h('h2', { id: 'storage-title' }, 'Storage'),
      h('p', null, 'This browser does not say how much storage the site may use.'),
    );
  }
  const persist = async () => {
    setAsking(true);
    const granted = await api.storage.persist();
    setDenied(!granted);
    setReport(await api.storage.report());
    setAsking(false);
  };
  const used = report.usage ?? 0;
  const quota = report.quota ?? 0;
  return h(
    'section',
    { class: 'card storage', 'aria-labelledby': 'storage-title' },
    h('h2', { id: 'storage-title' }, 'Storage'),
    h(
      'dl',
      { class: 'facts-list' },
      h('dt', null, 'Used'),
      h('dd', { 'data-testid': 'storage-used' }, `${formatBytes(used)} of ${formatBytes(quota)} this browser allows the site`),
      h('dt', null, 'Kept'),
      h(
        'dd',
        { 'data-testid': 'storage-persisted' },
        report.persisted
          ? 'Persistent: the browser keeps the weights until you delete them'
          : 'Best effort: under storage pressure the browser may evict the weights; they then download again on next use',
      ),
    ),
    quota > 0 && h('progress', { max: quota, value: used, 'aria-label': 'Storage used' }),
    !report.persisted &&
      h('button', { type: 'button', class: 'button small', disabled: asking, onClick: () => void persist() }, 'Ask the browser to keep them'),
    denied && h(Notice, { kind: 'info', role: 'status' }, 'The browser declined for now. Browsers grant it to sites you use often, bookmark or install.'),
  );
}

function ImportPanel() {
  const ui = useUi();
  const api = ui.api;
  const input = useRef<HTMLInputElement>(null);
  const [progress, setProgress] = useState<ImportProgress | null>(null);
  const [report, setReport] = useState<ImportReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Files dropped anywhere on the Models area (a model card, this card) are imported as a chosen folder is.
  const drop = useRef<(files: File[]) => void>(() => undefined);
  useEffect(() => {
    const area = input.current?.closest('.area');
    if (!area) return;
    const over = (e: Event) => {
      if ((e as DragEvent).dataTransfer?.types.includes('Files')) e.preventDefault();
    };
    const dropped = (e: Event) => {
      const files = Array.from((e as DragEvent).dataTransfer?.files ?? []);
      if (files.length === 0) return;
      e.preventDefault();
      drop.current(files);
    };
    area.addEventListener('dragover', over);
    area.addEventListener('drop', dropped);
    return () => {
      area.removeEventListener('dragover', over);
      area.removeEventListener('drop', dropped);
    };
  }, [api, ui.engine]);
  if (!api) return null;
  if (!ui.engine) {
    return h(
      'section',
      { class: 'card import', 'aria-labelledby': 'import-title' },
      h('h2', { id: 'import-title' }, 'Import from a folder'),
      h('p', null, 'The tab that runs the engine imports models: use it, or close it and this tab takes over.'),
    );
  }
  const chosen = async (files: FileList | File[] | null) => {
    if (!files || files.length === 0 || progress !== null) return;
    setReport(null);
    setError(null);
    try {
      setReport(await api.modelFiles.importFiles(Array.from(files), setProgress));
    } catch (err) {
      setError(errorText(err));
    } finally {
      setProgress(null);
      if (input.current) input.current.value = '';
    }
  };
  drop.current = (files) => void chosen(files);
  return h(
    'section',
    { class: 'card import', 'aria-labelledby': 'import-title' },
    h('h2', { id: 'import-title' }, 'Import from a folder'),
    h(
      'p',
      null,
      'No network, or weights already on disk? Choose a model’s folder (web-llm: its mlc-chat-config.json, tokenizer, tensor-cache.json and weight shards, and its .wasm library; llama.cpp: its .gguf file, split parts and mmproj), or a folder made by npm run models:pull, or drop .gguf files on this area. The files go into this browser’s model cache.',
    ),
    h('label', { class: 'button', for: 'import-folder' }, 'Choose a folder…'),
    h('input', {
      id: 'import-folder',
      ref: input,
      type: 'file',
      multiple: true,
      // Pick a folder: the files come with their paths inside it (webkitRelativePath).
      webkitdirectory: true,
      class: 'visually-hidden',
      disabled: progress !== null,
      'aria-label': 'Import a model from a folder',
      onChange: (e: Event) => void chosen((e.currentTarget as HTMLInputElement).files),
    }),
    progress &&
      h(
        'div',
        { class: 'progress', role: 'status' },
        h('progress', { max: progress.bytesTotal, value: progress.bytesDone, 'aria-label': `Import of ${progress.modelId}` }),
        h('p', { class: 'progress-text' }, `${progress.modelId}: ${formatBytes(progress.bytesDone)} of ${formatBytes(progress.bytesTotal)}`),
      ),
    report &&
      h(
        'div',
        { 'data-testid': 'import-report', role: 'status' },
        report.imported.map((m) =>
          h(
            Notice,
            { kind: 'ok' },
            `Imported ${m.modelId} (${m.variants.join(', ')}): ${m.files} files, ${formatBytes(m.bytes)}.`,
            m.warnings.map((w) => h('span', { class: 'hint' }, ` ${w}`)),
          ),
        ),
        report.problems.map((p) => h(Notice, { kind: 'warn' }, `Not imported: ${p}`)),
      ),
    error && h(Notice, { kind: 'error' }, error),
  );
}

/** Storage and import, shown below the model cards. */
export function ModelStorage() {
  return h('div', { class: 'model-storage' }, h(StoragePanel, null), h(ImportPanel, null));
}
