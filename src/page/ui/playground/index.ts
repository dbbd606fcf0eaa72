// Playground: chat with a variant through /v1, as any client would, with a key kept for this tab only. This
// file is the area; its parts beside it: the key chooser, the turns, the chat list, the parameters, the code view.
import { h } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { modelIds, variantOf } from '../../../catalog';
import type { ModelId } from '../../../variants';
import type { ApiCallError } from '../api';
import { current, loadConversations, send, stop, updateCurrent, useChat, type Sender } from '../chat';
import { approveDownload, sizeText, useDownloadSize } from '../download-ask';
import { exportJson, exportMarkdown, exportName } from '../conversation-request';
import { STATE_LABEL, progressLine, webGpuMissing } from '../models';
import { checkSessionKey } from '../session-key';
import { refreshKeys } from '../startup';
import { useUi } from '../store';
import { Notice, errorText } from '../widgets';
import { KeyChooser, KeyBar } from './key-chooser';
import { TurnView } from './turns';
import { ConversationList } from './chat-list';
import { thinkingHere, Parameters } from './parameters';
import { CodeView } from './code-view';

/** Images above this size make the request slow to encode and may pass the 20 MiB request limit. */
const MAX_IMAGE_BYTES = 8 * 1024 * 1024;

function readImage(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('The image could not be read.'));
    reader.readAsDataURL(file);
  });
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
