// Playground: chat with a variant through /v1, as any client would, with a key kept for this tab only.
import { h } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { modelIds, variantOf } from '../../catalog';
import type { ModelId } from '../../variants';
import type { ModelStatus } from '../../engine-protocol';
import { BASE_URL, type ApiCallError } from './api';
import {
  current,
  editAndResend,
  loadConversations,
  newConversation,
  regenerate,
  removeConversation,
  renameConversation,
  selectConversation,
  send,
  stop,
  updateCurrent,
  useChat,
  type Conversation,
  type Sender,
  type Turn,
} from './chat';
import { DEFAULT_PARAMS, type Params } from './conversation-db';
import { approveDownload, sizeText, useDownloadSize } from './download-ask';
import { conversationRequest, exportJson, exportMarkdown, exportName, requestCode } from './conversation-request';
import { formatDecimal, formatInteger } from './format';
import { STATE_LABEL, progressLine, webGpuMissing } from './models';
import { checkSessionKey, createPlaygroundKey, forgetSessionKey, keptPlaygroundKey, usePastedKey } from './session-key';
import { refreshKeys } from './startup';
import { useUi, type SessionKey } from './store';
import { CodeBlock, CopyButton, Markdown, Notice, errorText } from './widgets';

/** Images above this size make the request slow to encode and may pass the 20 MiB request limit. */
const MAX_IMAGE_BYTES = 8 * 1024 * 1024;

/** The current chat's model may download now (asked once over 100 MB; see download-ask.ts). */
function askForCurrentModel(): Promise<boolean> {
  const model = current()?.model;
  return model ? approveDownload(model) : Promise.resolve(true);
}

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

function readImage(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('The image could not be read.'));
    reader.readAsDataURL(file);
  });
}

function seconds(ms: number): string {
  return ms < 10_000 ? formatDecimal(ms / 1000) : formatInteger(ms / 1000);
}

function Stats(props: { turn: Turn }) {
  const { turn } = props;
  const s = turn.stats;
  const parts: string[] = [];
  if (turn.status === 'stopped') parts.push('Stopped');
  if (s) {
    const split = s.reasoningTokens ? `: ${formatInteger(s.reasoningTokens)} thinking, ${formatInteger(s.tokens - s.reasoningTokens)} answer` : '';
    parts.push(`${s.exact ? '' : '≈'}${formatInteger(s.tokens)} tokens${split}`);
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

interface TurnProps {
  turn: Turn;
  index: number;
  streaming: boolean;
  busy: boolean;
  last: boolean;
  sender: Sender | null;
}

function UserTurn(props: TurnProps) {
  const { turn } = props;
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(turn.text);
  const box = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    if (editing) box.current?.focus();
  }, [editing]);
  const submit = (e: Event) => {
    e.preventDefault();
    if (!props.sender || !text.trim()) return;
    const sender = props.sender;
    // Sent to a model that is not downloaded, it would start the download: over 100 MB, asked once first.
    void askForCurrentModel().then((ok) => {
      if (!ok) return;
      setEditing(false);
      editAndResend(sender, turn.id, text);
    });
  };
  return h(
    'li',
    { class: 'turn user', 'data-turn': props.index },
    h('p', { class: 'who' }, 'You'),
    turn.image && h('img', { class: 'attached', src: turn.image, alt: 'Attached image' }),
    editing
      ? h(
          'form',
          { class: 'edit-turn', onSubmit: submit },
          h('label', { for: `edit-${turn.id}`, class: 'visually-hidden' }, 'Edit your text'),
          h('textarea', {
            id: `edit-${turn.id}`,
            ref: box,
            rows: 3,
            value: text,
            onInput: (e: Event) => setText((e.currentTarget as HTMLTextAreaElement).value),
            onKeyDown: (e: KeyboardEvent) => {
              if (e.key === 'Escape') setEditing(false);
              if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) void submit(e);
            },
          }),
          h(
            'div',
            { class: 'turn-actions' },
            h('button', { type: 'submit', class: 'button small primary', disabled: !text.trim() || props.busy }, 'Send again'),
            h('button', { type: 'button', class: 'button small', onClick: () => setEditing(false) }, 'Cancel'),
          ),
          h('p', { class: 'hint' }, 'Sending again replaces this turn and everything after it.'),
        )
      : h('p', { class: 'user-text' }, turn.text),
    !editing &&
      h(
        'div',
        { class: 'turn-actions' },
        h(CopyButton, { text: turn.text, label: `Copy what you wrote (turn ${props.index + 1})` }),
        props.sender &&
          h(
            'button',
            {
              type: 'button',
              class: 'button small',
              disabled: props.busy,
              onClick: () => {
                setText(turn.text);
                setEditing(true);
              },
              'aria-label': `Edit turn ${props.index + 1}`,
            },
            'Edit',
          ),
      ),
  );
}

function AssistantTurn(props: TurnProps) {
  const { turn } = props;
  const streaming = props.streaming && turn.status === 'streaming';
  const thinkingNow = streaming && !turn.text;
  return h(
    'li',
    { class: `turn assistant ${turn.status ?? ''}`, 'aria-busy': streaming ? 'true' : 'false', 'data-status': turn.status, 'data-turn': props.index },
    h('p', { class: 'who' }, turn.model ?? 'Assistant'),
    turn.reasoning &&
      h(
        'details',
        { class: 'thinking', open: thinkingNow },
        h('summary', null, thinkingNow ? 'Thinking…' : turn.thoughtMs !== undefined ? `Thought for ${seconds(turn.thoughtMs)} s` : 'Thinking'),
        h('div', { class: 'thinking-text' }, turn.reasoning),
      ),
    turn.text
      ? h(Markdown, { text: turn.text, class: 'answer', final: !streaming })
      : streaming && !turn.reasoning && h('p', { class: 'muted waiting' }, 'Waiting for the first token…'),
    h(Stats, { turn }),
    !streaming &&
      h(
        'div',
        { class: 'turn-actions' },
        turn.text && h(CopyButton, { text: turn.text, label: `Copy the answer (turn ${props.index + 1})` }),
        props.last &&
          props.sender &&
          h(
            'button',
            { type: 'button', class: 'button small', disabled: props.busy, onClick: () => void askForCurrentModel().then((ok) => ok && regenerate(props.sender!)), 'aria-label': 'Regenerate the last answer' },
            'Regenerate',
          ),
      ),
  );
}

function TurnView(props: TurnProps) {
  if (props.turn.role === 'note') return h('li', { class: 'turn note', role: 'note' }, props.turn.text);
  return props.turn.role === 'user' ? h(UserTurn, props) : h(AssistantTurn, props);
}

function download(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function ConversationItem(props: { conversation: Conversation; selected: boolean; streaming: boolean }) {
  const { conversation } = props;
  const [mode, setMode] = useState<'view' | 'rename' | 'delete'>('view');
  const [name, setName] = useState(conversation.title);
  const field = useRef<HTMLInputElement>(null);
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (mode === 'rename') field.current?.select();
    if (mode === 'delete') confirm.current?.focus();
  }, [mode]);
  const title = conversation.title;
  if (mode === 'rename') {
    return h(
      'li',
      { class: 'chat-item renaming' },
      h(
        'form',
        {
          onSubmit: (e: Event) => {
            e.preventDefault();
            renameConversation(conversation.id, name);
            setMode('view');
          },
        },
        h('label', { for: `rename-${conversation.id}`, class: 'visually-hidden' }, `New name for the chat “${title}”`),
        h('input', {
          id: `rename-${conversation.id}`,
          ref: field,
          value: name,
          maxLength: 120,
          onInput: (e: Event) => setName((e.currentTarget as HTMLInputElement).value),
          onKeyDown: (e: KeyboardEvent) => {
            if (e.key === 'Escape') setMode('view');
          },
        }),
        h('button', { type: 'submit', class: 'button small primary', disabled: !name.trim() }, 'Save'),
        h('button', { type: 'button', class: 'button small', onClick: () => setMode('view') }, 'Cancel'),
      ),
    );
  }
  return h(
    'li',
    { class: `chat-item${props.selected ? ' selected' : ''}` },
    h(
      'button',
      { type: 'button', class: 'chat-open', 'aria-current': props.selected ? 'true' : undefined, onClick: () => selectConversation(conversation.id) },
      h('span', { class: 'chat-title' }, title),
      h('span', { class: 'chat-meta' }, `${conversation.turns.filter((t) => t.role === 'user').length} sent${props.streaming ? ' · answering…' : ''}`),
    ),
    mode === 'delete'
      ? h(
          'span',
          { class: 'chat-tools' },
          h('button', { type: 'button', class: 'button small danger', ref: confirm, onClick: () => void removeConversation(conversation.id), 'aria-label': `Delete the chat “${title}” now` }, 'Delete'),
          h('button', { type: 'button', class: 'button small', onClick: () => setMode('view'), 'aria-label': `Keep the chat “${title}”` }, 'Keep'),
        )
      : h(
          'span',
          { class: 'chat-tools' },
          h('button', { type: 'button', class: 'button small', onClick: () => { setName(title); setMode('rename'); }, 'aria-label': `Rename the chat “${title}”` }, 'Rename'),
          h('button', { type: 'button', class: 'button small', onClick: () => setMode('delete'), 'aria-label': `Delete the chat “${title}”` }, 'Delete'),
        ),
  );
}

function ConversationList() {
  const chat = useChat();
  return h(
    'nav',
    { class: 'pg-chats', 'aria-label': 'Chats' },
    h(
      'div',
      { class: 'pg-chats-head' },
      h('h2', null, 'Chats'),
      h('button', { type: 'button', class: 'button small', onClick: newConversation }, 'New chat'),
    ),
    h(
      'ul',
      null,
      chat.list.map((c) => h(ConversationItem, { key: c.id, conversation: c, selected: c.id === chat.currentId, streaming: c.id === chat.streamingId })),
    ),
  );
}

function numberOrNull(raw: string): number | null {
  if (raw.trim() === '') return null;
  const n = Number(raw);
  return Number.isFinite(n) ? n : null;
}

function ParamField(props: { id: string; label: string; hint: string; value: number | null; min: number; max?: number; step: number; onChange: (v: number | null) => void }) {
  return h(
    'div',
    { class: 'field param' },
    h('label', { for: props.id }, props.label),
    h('input', {
      id: props.id,
      type: 'number',
      inputMode: 'decimal',
      min: props.min,
      max: props.max,
      step: props.step,
      placeholder: 'default',
      value: props.value ?? '',
      onInput: (e: Event) => props.onChange(numberOrNull((e.currentTarget as HTMLInputElement).value)),
      'aria-describedby': `${props.id}-hint`,
    }),
    h('p', { class: 'hint', id: `${props.id}-hint` }, props.hint),
  );
}

/**
 * How the model serving a variant on this device thinks: the catalog's word, unless the engine's status says
 * otherwise (svc-vision's llama.cpp default, a Qwen3-VL Thinking model, always thinks and has no switch).
 */
export function thinkingHere(model: ModelId, status: ModelStatus | undefined): 'switchable' | 'always' | 'never' {
  const catalog = variantOf(model)!.thinks;
  if (status?.thinks && !catalog) return 'always';
  return catalog ? 'switchable' : 'never';
}

function Parameters(props: { conversation: Conversation; status: ModelStatus | undefined }) {
  const { conversation } = props;
  const p = conversation.params;
  const set = (patch: Partial<Params>) => updateCurrent({ params: { ...p, ...patch } });
  const thinking = thinkingHere(conversation.model, props.status);
  const thinks = thinking === 'switchable';
  const changed = (Object.keys(DEFAULT_PARAMS) as (keyof Params)[]).filter((k) => p[k] !== DEFAULT_PARAMS[k] && (k !== 'thinking' || thinks));
  return h(
    'details',
    { class: 'pg-params' },
    h('summary', null, 'Parameters', changed.length ? h('span', { class: 'muted' }, ` (${changed.length} set)`) : null),
    h(
      'div',
      { class: 'param-grid' },
      h(ParamField, { id: 'pg-temperature', label: 'Temperature', hint: '0–2; higher is more varied.', value: p.temperature, min: 0, max: 2, step: 0.1, onChange: (v) => set({ temperature: v }) }),
      h(ParamField, { id: 'pg-top-p', label: 'Top p', hint: '0–1; the share of likely tokens sampled from.', value: p.top_p, min: 0, max: 1, step: 0.05, onChange: (v) => set({ top_p: v }) }),
      h(ParamField, { id: 'pg-max-tokens', label: 'Max tokens', hint: 'Longest answer, thinking included.', value: p.max_tokens, min: 1, step: 1, onChange: (v) => set({ max_tokens: v === null ? null : Math.max(1, Math.round(v)) }) }),
      h(
        'div',
        { class: 'field checks' },
        h(
          'label',
          { class: 'check' },
          h('input', { type: 'checkbox', checked: thinking === 'always' || (thinks && p.thinking), disabled: !thinks, onChange: (e: Event) => set({ thinking: (e.currentTarget as HTMLInputElement).checked }) }),
          ' Thinking',
          h(
            'span',
            { class: 'muted' },
            thinking === 'switchable' ? ' (off sends reasoning_effort: "none")' : thinking === 'always' ? ' (the model serving it here always thinks)' : ' (this variant never thinks)',
          ),
        ),
        h(
          'label',
          { class: 'check' },
          h('input', { type: 'checkbox', checked: p.json, onChange: (e: Event) => set({ json: (e.currentTarget as HTMLInputElement).checked }) }),
          ' JSON mode',
          h('span', { class: 'muted' }, ' (response_format: json_object)'),
        ),
      ),
    ),
  );
}

function CodeView(props: { conversation: Conversation }) {
  const [kind, setKind] = useState<'fetch' | 'openai'>('fetch');
  const body = conversationRequest(props.conversation, props.conversation.draft.trim() || 'Your next message');
  return h(
    'section',
    { class: 'card pg-code', 'aria-labelledby': 'pg-code-title' },
    h('h2', { id: 'pg-code-title' }, 'This chat as code'),
    h('p', { class: 'hint' }, 'The request the next send makes, with the message in the composer; put your key in place of YOUR_INPAGE_KEY.'),
    h(
      'div',
      { class: 'segmented', role: 'group', 'aria-label': 'Client' },
      (['fetch', 'openai'] as const).map((k) =>
        h('button', { key: k, type: 'button', class: 'button small', 'aria-pressed': kind === k ? 'true' : 'false', onClick: () => setKind(k) }, k === 'fetch' ? 'fetch' : 'openai SDK'),
      ),
    ),
    h(CodeBlock, { code: requestCode(kind, BASE_URL, body), label: `${kind === 'fetch' ? 'fetch' : 'openai SDK'} code of this chat`, id: 'pg-code-text' }),
  );
}

export function PlaygroundArea() {
  const ui = useUi();
  const chat = useChat();
  const [image, setImage] = useState<{ url: string; name: string } | null>(null);
  const [imageError, setImageError] = useState<string | null>(null);
  const [showCode, setShowCode] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const messageBox = useRef<HTMLTextAreaElement>(null);
  const log = useRef<HTMLOListElement>(null);
  const orgId = ui.workspace?.orgId ?? null;
  useEffect(() => {
    if (orgId) void loadConversations(orgId);
  }, [orgId]);
  const conversation = current();
  const model: ModelId = conversation?.model ?? (modelIds().includes('svc-model-5.2-fast') ? 'svc-model-5.2-fast' : modelIds()[0]!);

  useEffect(() => {
    if (!variantOf(model)!.vision) setImage(null);
  }, [model]);

  // Follow the newest answer while it streams.
  const last = conversation?.turns[conversation.turns.length - 1];
  useEffect(() => {
    log.current?.lastElementChild?.scrollIntoView({ block: 'nearest' });
  }, [conversation?.id, conversation?.turns.length, last?.text.length, last?.reasoning?.length]);

  const missing = webGpuMissing(ui);
  const key = ui.sessionKey;
  const record = key ? ui.keys.find((k) => k.id === key.id) : undefined;
  const reachable = (id: ModelId) => !record || record.models.includes(id);
  const status = ui.models?.find((m) => m.id === model);
  const downloadSize = useDownloadSize(model, status?.state === 'not_downloaded' && ui.engine !== null);
  const variant = variantOf(model)!;
  const busy = chat.streamingId !== null;
  const sender: Sender | null = key
    ? {
        key: key.key,
        onAnswered: (failure: ApiCallError | null) => {
          void refreshKeys();
          if (failure?.code === 'invalid_api_key') void checkSessionKey();
        },
      }
    : null;
  const text = conversation?.draft ?? '';
  const error = chat.error && chat.error.conversationId === conversation?.id ? chat.error : null;

  const submit = async (e?: Event) => {
    e?.preventDefault();
    if (!sender || busy || !text.trim() || !conversation) return;
    // A message to a model that is not downloaded starts its download: over 100 MB, ask once first. A no
    // leaves the message in the box.
    if (!(await approveDownload(model))) return;
    const now = current();
    if (!now || now.id !== conversation.id || !now.draft.trim()) return;
    send(sender, now.draft.trim(), image?.url);
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
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) void submit(e);
  };

  const turns = conversation?.turns ?? [];
  const lastAssistant = turns.map((t) => t.role).lastIndexOf('assistant');
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
      { class: 'pg-layout' },
      h(ConversationList, null),
      conversation &&
        h(
          'div',
          { class: 'pg-main' },
          h(
            'div',
            { class: 'pg-head' },
            h('h2', { class: 'pg-title', 'data-testid': 'chat-title', title: conversation.title }, conversation.title),
            h(
              'div',
              { class: 'pg-head-actions' },
              h('button', { type: 'button', class: 'button small', 'aria-expanded': showCode ? 'true' : 'false', onClick: () => setShowCode(!showCode) }, showCode ? 'Hide code' : 'View as code'),
              h('button', { type: 'button', class: 'button small', disabled: turns.length === 0, onClick: () => download(exportName(conversation, 'json'), 'application/json', exportJson(conversation)) }, 'Export JSON'),
              h('button', { type: 'button', class: 'button small', disabled: turns.length === 0, onClick: () => download(exportName(conversation, 'md'), 'text/markdown', exportMarkdown(conversation)) }, 'Export Markdown'),
            ),
          ),
          showCode && h(CodeView, { conversation }),
          h(
            'div',
            { class: 'field pg-system' },
            h('label', { for: 'pg-system' }, 'System prompt ', h('span', { class: 'muted' }, '(optional)')),
            h('textarea', {
              id: 'pg-system',
              rows: 1,
              placeholder: 'e.g. Answer in one short paragraph.',
              value: conversation.system,
              onInput: (e: Event) => updateCurrent({ system: (e.currentTarget as HTMLTextAreaElement).value }),
            }),
            h(Parameters, { conversation, status }),
          ),
          h(
            'ol',
            { class: 'turns', ref: log, 'aria-label': 'Conversation' },
            turns.length === 0 && h('li', { class: 'empty' }, 'Say something to start. Answers stream in as the model writes them.'),
            turns.map((turn, index) =>
              h(TurnView, { key: turn.id, turn, index, streaming: chat.streamingId === conversation.id, busy, last: index === lastAssistant, sender }),
            ),
          ),
          h(
            'form',
            { class: 'composer card', onSubmit: (e: Event) => void submit(e) },
            error &&
              h(
                Notice,
                { kind: 'error' },
                h('strong', null, 'Not sent: '),
                error.text,
                ' Your message is back in the box below.',
              ),
            h(
              'div',
              { class: 'composer-top' },
              h(
                'div',
                { class: 'field model-field' },
                h('label', { for: 'pg-model' }, 'Model'),
                h(
                  'select',
                  { id: 'pg-model', value: model, onChange: (e: Event) => updateCurrent({ model: (e.currentTarget as HTMLSelectElement).value as ModelId }), 'aria-describedby': 'pg-model-hint' },
                  // The chat models: svc-embed answers POST /v1/embeddings only.
                  modelIds().filter((id) => !variantOf(id)?.embeddings).map((id) => {
                    const state = ui.models?.find((m) => m.id === id)?.state;
                    const can = reachable(id);
                    return h('option', { key: id, value: id, disabled: !can }, `${id}${state ? ` · ${STATE_LABEL[state].toLowerCase()}` : ''}${can ? '' : ' · key cannot reach it'}`);
                  }),
                ),
              ),
            ),
            h(
              'p',
              { class: 'hint', id: 'pg-model-hint' },
              [
                thinkingHere(model, status) === 'always' || (variant.thinks && conversation.params.thinking)
                  ? 'Thinks first; the thinking shows in a block that folds when the answer starts.'
                  : variant.thinks
                    ? 'Thinking is off for this chat.'
                    : 'Answers directly, without thinking.', variant.vision ? ' Reads images: attach one to your message.' : ''].join(''),
              status && status.state === 'not_downloaded'
                ? ` Not downloaded: the first message downloads it (${sizeText(downloadSize)}${downloadSize?.host ? ` from ${downloadSize.host}` : ''}) and loads it.`
                : status && status.state !== 'ready' && status.state !== 'downloading' && status.state !== 'loading'
                  ? ` ${STATE_LABEL[status.state]}: the first message loads it.`
                  : '',
            ),
            status && (status.state === 'downloading' || status.state === 'loading') && status.progress &&
              h('p', { class: 'hint', role: 'status' }, `${STATE_LABEL[status.state]} ${model}: ${progressLine(status, ui.rates[model])}`),
            h('label', { for: 'pg-message', class: 'visually-hidden' }, 'Message'),
            h('textarea', {
              id: 'pg-message',
              ref: messageBox,
              rows: 3,
              placeholder: key ? 'Message (Enter sends, Shift+Enter for a new line)' : 'Choose a key above first',
              value: text,
              disabled: !key,
              onInput: (e: Event) => updateCurrent({ draft: (e.currentTarget as HTMLTextAreaElement).value }),
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
                  h('button', { type: 'button', class: 'button', disabled: !key || busy, onClick: () => fileInput.current?.click() }, image ? 'Replace image' : 'Attach image'),
                ),
              busy
                ? h('button', { type: 'button', class: 'button danger', onClick: stop }, 'Stop')
                : h('button', { type: 'submit', class: 'button primary', disabled: !key || !text.trim() }, 'Send'),
            ),
          ),
        ),
    ),
  );
}
