// Playground: chat with a variant through /v1, as any client would, with a key kept for this tab only.
import { h } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { modelIds, variantOf } from '../../catalog';
import type { ModelId } from '../../variants';
import type { ApiCallError } from './api';
import { useChat, type Turn } from './chat';
import { formatDecimal, formatInteger } from './format';
import { STATE_LABEL, progressLine, webGpuMissing } from './models';
import { checkSessionKey, createPlaygroundKey, forgetSessionKey, keptPlaygroundKey, usePastedKey } from './session-key';
import { refreshKeys } from './startup';
import { useUi, type SessionKey } from './store';
import { Markdown, Notice, errorText } from './widgets';

/** Images above this size make the request slow to encode and may pass the 20 MiB request limit. */
const MAX_IMAGE_BYTES = 8 * 1024 * 1024;
const MODEL_STORAGE = 'inpage:playground-model';

function KeyChooser() {
  const [pasted, setPasted] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const act = async (what: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await what();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return h(
    'section',
    { class: 'card key-chooser', 'aria-labelledby': 'pg-key-title' },
    h('h2', { id: 'pg-key-title' }, 'The Playground needs a key'),
    h(
      'p',
      null,
      'It calls ',
      h('code', null, '/v1/chat/completions'),
      ' like any other client. inpage keeps only hashes of keys, so it cannot reuse one of yours: use the workspace’s Playground key (made once, then reused by every tab and visit), or paste a key (kept for this tab only).',
    ),
    h(
      'div',
      { class: 'key-options' },
      h(
        'div',
        null,
        h('button', { type: 'button', class: 'button primary', disabled: busy, onClick: () => act(createPlaygroundKey) }, keptPlaygroundKey() ? 'Use the Playground key' : 'Create a Playground key'),
        h('p', { class: 'hint' }, 'One key named “Playground” reaching all five models; it shows in API Keys, where you can revoke it.'),
      ),
      h(
        'form',
        {
          class: 'paste-key',
          onSubmit: (e: Event) => {
            e.preventDefault();
            void act(() => usePastedKey(pasted).then(() => setPasted('')));
          },
        },
        h('label', { for: 'pg-paste-key' }, 'Or paste a key'),
        h(
          'div',
          { class: 'inline-field' },
          h('input', {
            id: 'pg-paste-key',
            type: 'password',
            class: 'mono',
            autoComplete: 'off',
            spellcheck: false,
            placeholder: 'sk-svc-…',
            value: pasted,
            onInput: (e: Event) => setPasted((e.currentTarget as HTMLInputElement).value),
          }),
          h('button', { type: 'submit', class: 'button', disabled: busy || !pasted.trim() }, 'Use key'),
        ),
      ),
    ),
    error && h(Notice, { kind: 'error' }, error),
  );
}

function KeyBar(props: { sessionKey: SessionKey }) {
  return h(
    'p',
    { class: 'key-bar' },
    'Calling ',
    h('code', null, '/v1'),
    ' with key ',
    h('code', { 'data-testid': 'pg-key' }, props.sessionKey.display),
    props.sessionKey.id === keptPlaygroundKey()?.id ? ' (the workspace’s Playground key, reused by every tab). ' : ` (${props.sessionKey.name}), kept for this tab only. `,
    h('button', { type: 'button', class: 'button small', onClick: forgetSessionKey }, 'Forget key'),
  );
}

function Stats(props: { turn: Turn }) {
  const { turn } = props;
  const s = turn.stats;
  const parts: string[] = [];
  if (turn.status === 'stopped') parts.push('Stopped');
  if (s) {
    parts.push(`${s.exact ? '' : '≈'}${formatInteger(s.tokens)} tokens`);
    if (s.tokensPerSecond !== null) {
      parts.push(`${s.tokensPerSecond >= 100 ? formatInteger(s.tokensPerSecond) : formatDecimal(s.tokensPerSecond)} tokens/s`);
    }
    if (s.firstTokenMs !== null) {
      parts.push(`first token after ${s.firstTokenMs < 1000 ? `${formatInteger(s.firstTokenMs)} ms` : `${formatDecimal(s.firstTokenMs / 1000)} s`}`);
    }
    if (s.finish === 'length') parts.push('cut at the length limit');
  }
  return parts.length ? h('p', { class: 'turn-stats', 'data-testid': 'stats' }, parts.join(' · ')) : null;
}

function TurnView(props: { turn: Turn }) {
  const { turn } = props;
  if (turn.role === 'user') {
    return h(
      'li',
      { class: 'turn user' },
      h('p', { class: 'who' }, 'You'),
      turn.image && h('img', { class: 'attached', src: turn.image, alt: 'Attached image' }),
      h('p', { class: 'user-text' }, turn.text),
    );
  }
  const streaming = turn.status === 'streaming';
  return h(
    'li',
    { class: `turn assistant ${turn.status ?? ''}`, 'aria-busy': streaming ? 'true' : 'false', 'data-status': turn.status },
    h('p', { class: 'who' }, turn.model ?? 'Assistant'),
    turn.reasoning &&
      h(
        'details',
        { class: 'thinking' },
        h('summary', null, streaming && !turn.text ? 'Thinking…' : 'Thinking'),
        h('div', { class: 'thinking-text' }, turn.reasoning),
      ),
    turn.text ? h(Markdown, { text: turn.text, class: 'answer' }) : streaming && !turn.reasoning && h('p', { class: 'muted waiting' }, 'Waiting for the first token…'),
    turn.error && h(Notice, { kind: 'error' }, turn.error),
    h(Stats, { turn }),
  );
}

function readImage(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('The image could not be read.'));
    reader.readAsDataURL(file);
  });
}

function initialModel(): ModelId {
  try {
    const stored = sessionStorage.getItem(MODEL_STORAGE);
    if (stored !== null && modelIds().includes(stored)) return stored;
  } catch {
    // No storage: the default.
  }
  // The deployment may hide it: then its first model.
  return modelIds().includes('svc-model-5.2-fast') ? 'svc-model-5.2-fast' : modelIds()[0]!;
}

export function PlaygroundArea() {
  const ui = useUi();
  const [model, setModel] = useState<ModelId>(initialModel);
  const [system, setSystem] = useState('');
  const [text, setText] = useState('');
  const [image, setImage] = useState<{ url: string; name: string } | null>(null);
  const [imageError, setImageError] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const messageBox = useRef<HTMLTextAreaElement>(null);
  const log = useRef<HTMLOListElement>(null);
  const chat = useChat((failure: ApiCallError | null) => {
    void refreshKeys();
    if (failure?.code === 'invalid_api_key') void checkSessionKey();
  });

  useEffect(() => {
    try {
      sessionStorage.setItem(MODEL_STORAGE, model);
    } catch {
      // Not remembered; fine.
    }
    if (!variantOf(model)!.vision) setImage(null);
  }, [model]);

  // Follow the newest answer while it streams.
  const last = chat.turns[chat.turns.length - 1];
  useEffect(() => {
    log.current?.lastElementChild?.scrollIntoView({ block: 'nearest' });
  }, [chat.turns.length, last?.text.length, last?.reasoning?.length]);

  const missing = webGpuMissing(ui);
  const key = ui.sessionKey;
  const record = key ? ui.keys.find((k) => k.id === key.id) : undefined;
  const reachable = (id: ModelId) => !record || record.models.includes(id);
  const status = ui.models?.find((m) => m.id === model);
  const variant = variantOf(model)!;

  const submit = (e?: Event) => {
    e?.preventDefault();
    if (!key || chat.busy || !text.trim()) return;
    void chat.send({ key: key.key, model, system, text: text.trim(), image: image?.url });
    setText('');
    setImage(null);
  };

  const pickImage = async (e: Event) => {
    const input = e.currentTarget as HTMLInputElement;
    const file = input.files?.[0];
    input.value = '';
    setImageError(null);
    if (!file) return;
    if (!file.type.startsWith('image/')) return setImageError('Choose an image file (PNG, JPEG, WebP or GIF).');
    if (file.size > MAX_IMAGE_BYTES) return setImageError('That image is larger than 8 MiB; choose a smaller one.');
    try {
      setImage({ url: await readImage(file), name: file.name });
    } catch (err) {
      setImageError(errorText(err));
    }
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) submit(e);
  };

  return h(
    'section',
    { class: 'area playground', 'aria-labelledby': 'area-title' },
    h('h1', { id: 'area-title', tabIndex: -1 }, 'Playground'),
    missing &&
      h(
        Notice,
        { kind: 'warn' },
        h('strong', null, 'No WebGPU in this browser: '),
        'the models cannot answer here. ',
        h('a', { href: '#models' }, 'What to do about it'),
        '.',
      ),
    key ? h(KeyBar, { sessionKey: key }) : h(KeyChooser, null),
    h(
      'div',
      { class: 'pg-settings card' },
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'pg-model' }, 'Model'),
        h(
          'select',
          { id: 'pg-model', value: model, onChange: (e: Event) => setModel((e.currentTarget as HTMLSelectElement).value as ModelId) },
          modelIds().map((id) => {
            const state = ui.models?.find((m) => m.id === id)?.state;
            const can = reachable(id);
            return h('option', { key: id, value: id, disabled: !can }, `${id}${state ? ` · ${STATE_LABEL[state].toLowerCase()}` : ''}${can ? '' : ' · key cannot reach it'}`);
          }),
        ),
        h(
          'p',
          { class: 'hint', id: 'pg-model-hint' },
          [variant.thinks ? 'Thinks first; the thinking shows in a collapsible block.' : 'Answers directly, without thinking.', variant.vision ? ' Reads images: attach one to your message.' : ''].join(''),
          status && status.state !== 'ready' && status.state !== 'downloading' && status.state !== 'loading' ? ` ${STATE_LABEL[status.state]}: the first message loads it.` : '',
        ),
        status && (status.state === 'downloading' || status.state === 'loading') && status.progress &&
          h('p', { class: 'hint', role: 'status' }, `${STATE_LABEL[status.state]} ${model}: ${progressLine(status, ui.rates[model])}`),
      ),
      h(
        'div',
        { class: 'field grow' },
        h('label', { for: 'pg-system' }, 'System prompt ', h('span', { class: 'muted' }, '(optional)')),
        h('textarea', {
          id: 'pg-system',
          rows: 2,
          placeholder: 'e.g. Answer in one short paragraph.',
          value: system,
          onInput: (e: Event) => setSystem((e.currentTarget as HTMLTextAreaElement).value),
        }),
      ),
    ),
    h(
      'ol',
      { class: 'turns', ref: log, 'aria-label': 'Conversation' },
      chat.turns.length === 0 && h('li', { class: 'empty' }, 'Say something to start. Answers stream in as the model writes them.'),
      chat.turns.map((turn) => h(TurnView, { key: turn.id, turn })),
    ),
    h(
      'form',
      { class: 'composer card', onSubmit: submit },
      h('label', { for: 'pg-message', class: 'visually-hidden' }, 'Message'),
      h('textarea', {
        id: 'pg-message',
        ref: messageBox,
        rows: 3,
        placeholder: key ? 'Message (Enter sends, Shift+Enter for a new line)' : 'Choose a key above first',
        value: text,
        disabled: !key,
        onInput: (e: Event) => setText((e.currentTarget as HTMLTextAreaElement).value),
        onKeyDown,
      }),
      image &&
        h(
          'div',
          { class: 'attachment' },
          h('img', { src: image.url, alt: `Attached: ${image.name}` }),
          h('span', null, image.name),
          h('button', { type: 'button', class: 'button small', onClick: () => setImage(null), 'aria-label': `Remove image ${image.name}` }, 'Remove'),
        ),
      imageError && h(Notice, { kind: 'error' }, imageError),
      h(
        'div',
        { class: 'composer-actions' },
        variant.vision &&
          h(
            'span',
            null,
            h('input', { ref: fileInput, id: 'pg-image', type: 'file', accept: 'image/png,image/jpeg,image/webp,image/gif', class: 'visually-hidden', tabIndex: -1, onChange: pickImage, 'aria-label': 'Image to attach' }),
            h('button', { type: 'button', class: 'button', disabled: !key || chat.busy, onClick: () => fileInput.current?.click() }, image ? 'Replace image' : 'Attach image'),
          ),
        h('button', { type: 'button', class: 'button', disabled: chat.turns.length === 0, onClick: chat.clear }, 'Clear chat'),
        chat.busy
          ? h('button', { type: 'button', class: 'button danger', onClick: chat.stop }, 'Stop')
          : h('button', { type: 'submit', class: 'button primary', disabled: !key || !text.trim() }, 'Send'),
      ),
    ),
  );
}
