// Playground: chat with a variant through /v1, as any client would, with a key kept for this tab only. This
// file is the area; its parts beside it: the key chooser, the turns, the chat list, the parameters, the code view,
// the following of the newest answer (follow.ts); its conversations (state, sending, IndexedDB) in state/.
import { h } from 'preact';
import type { RefObject } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { modelIds, variantOf } from '#shared/catalog';
import type { ModelId } from '#shared/variants';
import type { ModelStatus } from '#shared/wire/engine-port';
import type { ApiCallError } from '../../kit/api';
import { current, duplicateConversation, loadConversations, send, stop, updateCurrent, useChat, type Conversation, type Sender } from './state/chat';
import { approveDownload, sizeText, useDownloadSize, type ShownSize } from '../../kit/download-ask';
import { exportJson, exportMarkdown, exportName, paramsProblem } from './state/conversation-request';
import { webGpuMissing } from '../../kit/device';
import { answerable } from '../../kit/model-facts';
import { STATE_LABEL, preferredModel, progressLine } from '../../kit/model-state';
import { checkSessionKey } from '../../session-key';
import { refreshKeys } from '../../startup';
import { useUi } from '../../store';
import { Notice, errorText } from '../../kit/widgets';
import { ErrorText } from '../../kit/plain-error';
import { KeyChooser, KeyBar } from './key-chooser';
import { TurnView } from './turns';
import { ConversationList } from './chat-list';
import { changedParams, Functions, thinkingHere, Parameters } from './parameters';
import { CodeView } from './code-view';
import { ContextBar } from './context-bar';
import { nextFit } from './state/context-budget';
import { useFollow } from './follow';
import { focusComposer } from './focus';
import { ShortcutsHelp, useShortcuts } from './shortcuts';

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

/** The hint of a model, folded into the picker: the picker's tooltip and its description for screen readers. */
function modelHint(model: ModelId, conversation: Conversation, status: ModelStatus | undefined, downloadSize: ShownSize | null | undefined): string {
  const variant = variantOf(model)!;
  const how = thinkingHere(model, status);
  const thinking =
    how === 'always' || (how === 'switchable' && conversation.params.thinking)
      ? `Thinks first${how === 'always' ? ' (always: the model here has no switch)' : ''}; the thinking shows in a block that folds when the answer starts.`
      : how === 'switchable'
        ? 'Thinking is off for this chat.'
        : 'Answers directly, without thinking.';
  const vision = variant.vision ? ' Reads images: attach one to your message.' : '';
  const state =
    status && status.state === 'not_downloaded'
      ? ` Not downloaded: the first message downloads it (${sizeText(downloadSize)}${downloadSize?.host ? ` from ${downloadSize.host}` : ''}) and loads it.`
      : status && status.state === 'unavailable'
        ? ` Cannot run on this device${status.error ? `: ${status.error}` : '.'}`
        : status && status.state !== 'ready' && status.state !== 'downloading' && status.state !== 'loading'
          ? ` ${STATE_LABEL[status.state]}: the first message loads it.`
          : '';
  return thinking + vision + state;
}

/** A panel that opens over the page on a phone (a drawer, a sheet) and beside the chat on a wide screen. */
function usePanel(name: string): { open: boolean; toggle: (to?: boolean) => void; button: RefObject<HTMLButtonElement | null>; panel: RefObject<HTMLElement | null> } {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement | null>(null);
  const panel = useRef<HTMLElement | null>(null);
  useEffect(() => {
    // Opened: focus moves into it.
    if (open) (panel.current?.querySelector<HTMLElement>('[data-autofocus]') ?? panel.current?.querySelector<HTMLElement>('button'))?.focus({ preventScroll: true });
  }, [open]);
  const toggle = (to?: boolean) => {
    const next = to ?? !open;
    // Closed with the focus inside: it goes back to the button that opened it.
    if (!next && panel.current?.contains(document.activeElement)) button.current?.focus({ preventScroll: true });
    setOpen(next);
  };
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') toggle(false);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open, name]);
  return { open, toggle, button, panel };
}

export function PlaygroundArea() {
  const ui = useUi();
  const chat = useChat();
  const [imageError, setImageError] = useState<string | null>(null);
  const [showCode, setShowCode] = useState(false);
  const [showHelp, setShowHelp] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const messageBox = useRef<HTMLTextAreaElement>(null);
  const log = useRef<HTMLOListElement>(null);
  const composer = useRef<HTMLFormElement>(null);
  const chats = usePanel('chats');
  const settings = usePanel('settings');
  const orgId = ui.workspace?.orgId ?? null;
  useEffect(() => {
    if (orgId) void loadConversations(orgId);
  }, [orgId]);
  const conversation = current();
  const model: ModelId = conversation?.model ?? preferredModel();

  const follow = useFollow([log, composer], conversation?.id ?? null);
  const stopAnswer = () => {
    stop();
    focusComposer();
  };
  const closeCode = () => {
    setShowCode(false);
    requestAnimationFrame(() => document.querySelector<HTMLElement>('.pg-more summary')?.focus({ preventScroll: true }));
  };
  useShortcuts({ busy: chat.streamingId !== null, stop: stopAnswer, help: () => setShowHelp(true), code: showCode ? closeCode : null });

  const missing = webGpuMissing(ui);
  const key = ui.sessionKey;
  const record = key ? ui.keys.find((k) => k.id === key.id) : undefined;
  const reachable = (id: ModelId) => !record || record.models.includes(id);
  const status = ui.models?.find((m) => m.id === model);
  const downloadSize = useDownloadSize(model, status?.state === 'not_downloaded' && ui.engine !== null);
  const variant = variantOf(model)!;
  const busy = chat.streamingId !== null;
  // A variant this device cannot run (too large for it, say): the message is not sent, and a runnable one is offered.
  const cannotRun = status && !answerable(status) ? status : null;
  const alternative = cannotRun ? preferredModel(reachable) : null;
  // A chat nobody has written in or picked a model for moves to a model this device runs, once the engine says
  // the one it has cannot run here (on every visit: the engine says so again after a reload).
  useEffect(() => {
    if (cannotRun && conversation && conversation.turns.length === 0 && !conversation.modelChosen && alternative && alternative !== model) updateCurrent({ model: alternative });
  }, [cannotRun, conversation?.id, alternative]);
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
  // The attachment is the draft's: it stays with the chat, and comes back with the text after a failed send.
  const image = variant.vision ? (conversation?.draftImage ?? null) : null;
  const context = status?.context_length ?? null;
  const fits = !conversation || context === null || nextFit(conversation, text.trim(), context).fits;
  const problem = conversation ? paramsProblem(conversation.params) : null;
  const error = chat.error && chat.error.conversationId === conversation?.id ? chat.error : null;

  // The message box grows with its text, up to about a third of the screen, then scrolls.
  useLayoutEffect(() => {
    const box = messageBox.current;
    if (!box) return;
    const style = getComputedStyle(box);
    const line = parseFloat(style.lineHeight) || 24;
    const padding = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom) + parseFloat(style.borderTopWidth) + parseFloat(style.borderBottomWidth);
    box.rows = 1;
    const max = Math.max(2, Math.floor((window.innerHeight * 0.3 - padding) / line));
    box.rows = Math.min(max, Math.max(1, Math.round((box.scrollHeight - padding + 2) / line)));
  }, [text, conversation?.id]);

  const submit = async (e?: Event) => {
    e?.preventDefault();
    if (!sender || busy || !text.trim() || !conversation || cannotRun || problem || !fits) return;
    // A message to a model that is not downloaded starts its download: over 100 MB, ask once first. A no
    // leaves the message in the box.
    if (!(await approveDownload(model))) return;
    const now = current();
    if (!now || now.id !== conversation.id || !now.draft.trim()) return;
    follow.jump();
    send(sender, now.draft.trim());
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
      updateCurrent({ draftImage: { url: await readImage(file), name: file.name } });
    } catch (err) {
      setImageError(errorText(err));
    }
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) void submit(e);
  };

  const turns = conversation?.turns ?? [];
  const lastAssistant = turns.map((t) => t.role).lastIndexOf('assistant');
  const changed = conversation ? changedParams(conversation, status) : 0;
  const settingsCount = (conversation?.system.trim() ? 1 : 0) + changed;
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
      { class: `pg-layout${settings.open ? ' with-settings' : ''}` },
      // The chats: a column on a wide screen, a drawer on a phone.
      h(
        'div',
        { class: `pg-drawer${chats.open ? ' open' : ''}`, id: 'pg-chats-panel', ref: chats.panel },
        h(ConversationList, { onPicked: () => chats.toggle(false), onClose: () => chats.toggle(false) }),
      ),
      chats.open && h('div', { class: 'pg-scrim', onClick: () => chats.toggle(false), 'aria-hidden': 'true' }),
      conversation &&
        h(
          'div',
          { class: 'pg-main' },
          h(
            'div',
            { class: 'pg-head' },
            h(
              'button',
              { type: 'button', class: 'button small pg-chats-button', ref: chats.button, 'aria-expanded': chats.open ? 'true' : 'false', 'aria-controls': 'pg-chats-panel', onClick: () => chats.toggle() },
              h('span', { 'aria-hidden': 'true' }, '☰ '),
              'Chats',
            ),
            h('h2', { class: 'pg-title', 'data-testid': 'chat-title', title: conversation.title, tabIndex: -1 }, conversation.title),
            h(
              'div',
              { class: 'pg-model' },
              h('label', { for: 'pg-model', class: 'visually-hidden' }, 'Model'),
              h(
                'select',
                {
                  id: 'pg-model',
                  value: model,
                  title: modelHint(model, conversation, status, downloadSize),
                  onChange: (e: Event) => updateCurrent({ model: (e.currentTarget as HTMLSelectElement).value as ModelId, modelChosen: true }),
                  'aria-describedby': 'pg-model-hint',
                },
                // The chat models: svc-embed answers POST /v1/embeddings only.
                modelIds().filter((id) => !variantOf(id)?.embeddings).map((id) => {
                  const found = ui.models?.find((m) => m.id === id);
                  const state = found?.state;
                  const can = reachable(id);
                  const label = found?.serving?.engine === 'upstream' ? 'answered upstream' : state === 'unavailable' ? 'cannot run here' : state ? STATE_LABEL[state].toLowerCase() : '';
                  return h('option', { key: id, value: id, disabled: !can }, `${id}${label ? ` · ${label}` : ''}${can ? '' : ' · key cannot reach it'}`);
                }),
              ),
              h('p', { class: 'visually-hidden', id: 'pg-model-hint' }, modelHint(model, conversation, status, downloadSize)),
            ),
            h(
              'button',
              { type: 'button', class: 'button small', ref: settings.button, 'aria-expanded': settings.open ? 'true' : 'false', 'aria-controls': 'pg-settings', onClick: () => settings.toggle() },
              'Settings',
              settingsCount ? h('span', { class: 'muted' }, ` (${settingsCount})`) : null,
            ),
            h(
              'details',
              { class: 'pg-more' },
              h('summary', { class: 'button small', 'aria-label': 'More chat actions' }, '⋯'),
              h(
                'div',
                { class: 'pg-more-menu card' },
                h('button', { type: 'button', class: 'button small', 'aria-expanded': showCode ? 'true' : 'false', onClick: (e: Event) => { closeMenu(e); setShowCode(!showCode); } }, showCode ? 'Hide code' : 'View as code'),
                h('button', { type: 'button', class: 'button small', onClick: (e: Event) => { closeMenu(e); setShowHelp(true); }, 'aria-keyshortcuts': 'Shift+?' }, 'Keyboard shortcuts'),
                h('button', { type: 'button', class: 'button small', disabled: turns.length === 0 || busy, onClick: (e: Event) => { closeMenu(e); duplicateConversation(); } }, 'Duplicate chat'),
                h('button', { type: 'button', class: 'button small', disabled: turns.length === 0, onClick: (e: Event) => { closeMenu(e); download(exportName(conversation, 'json'), 'application/json', exportJson(conversation)); } }, 'Export JSON'),
                h('button', { type: 'button', class: 'button small', disabled: turns.length === 0, onClick: (e: Event) => { closeMenu(e); download(exportName(conversation, 'md'), 'text/markdown', exportMarkdown(conversation)); } }, 'Export Markdown'),
              ),
            ),
          ),
          showCode && h(CodeView, { conversation, onClose: closeCode }),
          h(
            'ol',
            { class: 'turns', ref: log, 'aria-label': 'Conversation' },
            turns.length === 0 && h('li', { class: 'empty' }, 'Say something to start. Answers stream in as the model writes them.'),
            turns.map((turn, index) =>
              h(TurnView, { key: turn.id, turn, index, streaming: chat.streamingId === conversation.id, busy, last: index === lastAssistant, final: index === turns.length - 1, sender }),
            ),
          ),
          h(
            'form',
            { class: 'composer', ref: composer, onSubmit: (e: Event) => void submit(e) },
            !follow.atEnd && turns.length > 0 && h('button', { type: 'button', class: 'button small jump-latest', onClick: follow.jump }, h('span', { 'aria-hidden': 'true' }, '↓ '), 'Jump to latest'),
            error &&
              h(
                Notice,
                { kind: 'error' },
                h(ErrorText, { message: error.text, code: error.code, before: 'Not sent: ', after: ' Your message is back in the box below.' }),
              ),
            cannotRun &&
              h(
                'div',
                { class: 'notice notice-warn cannot-run', role: 'status', 'data-testid': 'cannot-run' },
                h('p', null, h('strong', null, `${model} cannot run on this device. `), cannotRun.error ?? ''),
                alternative &&
                  h('button', { type: 'button', class: 'button small', onClick: () => updateCurrent({ model: alternative, modelChosen: true }) }, `Use ${alternative}`),
              ),
            problem && h(Notice, { kind: 'error' }, problem),
            status && (status.state === 'downloading' || status.state === 'loading') && status.progress &&
              h('p', { class: 'hint', role: 'status' }, `${STATE_LABEL[status.state]} ${model}: ${progressLine(status, ui.rates[model])}`),
            image &&
              h(
                'div',
                { class: 'attachment' },
                h('img', { src: image.url, alt: `Attached: ${image.name}` }),
                h('span', null, image.name),
                h('button', { type: 'button', class: 'button small', onClick: () => { updateCurrent({ draftImage: null }); messageBox.current?.focus(); }, 'aria-label': `Remove image ${image.name}` }, 'Remove'),
              ),
            imageError && h(Notice, { kind: 'error' }, imageError),
            h(ContextBar, { conversation, status, sender, busy }),
            h(
              'div',
              { class: 'composer-box' },
              variant.vision &&
                h(
                  'span',
                  { class: 'composer-attach' },
                  h('input', { ref: fileInput, id: 'pg-image', type: 'file', accept: 'image/png,image/jpeg,image/webp,image/gif', class: 'visually-hidden', tabIndex: -1, onChange: pickImage, 'aria-label': 'Image to attach' }),
                  h('button', { type: 'button', class: 'button small', disabled: !key || busy, onClick: () => fileInput.current?.click() }, image ? 'Replace image' : 'Attach image'),
                ),
              h('label', { for: 'pg-message', class: 'visually-hidden' }, 'Message'),
              h('textarea', {
                id: 'pg-message',
                ref: messageBox,
                rows: 1,
                placeholder: key ? 'Message' : 'Choose a key above first',
                'aria-keyshortcuts': '/',
                value: text,
                disabled: !key,
                onInput: (e: Event) => updateCurrent({ draft: (e.currentTarget as HTMLTextAreaElement).value }),
                onKeyDown,
              }),
              busy
                ? h('button', { type: 'button', class: 'button danger', onClick: stopAnswer, 'aria-keyshortcuts': 'Escape' }, 'Stop')
                : h('button', { type: 'submit', class: 'button primary', disabled: !key || !text.trim() || cannotRun !== null || problem !== null || !fits }, 'Send'),
            ),
          ),
        ),
      conversation &&
        h(
          'aside',
          { class: `pg-settings${settings.open ? ' open' : ''}`, id: 'pg-settings', ref: settings.panel, 'aria-labelledby': 'pg-settings-title' },
          h(
            'div',
            { class: 'pg-panel-head' },
            h('h2', { id: 'pg-settings-title' }, 'Chat settings'),
            // The focus goes to Done when the panel opens, not into the system prompt: a phone would raise its keyboard.
            h('button', { type: 'button', class: 'button small', 'data-autofocus': '', onClick: () => settings.toggle(false) }, 'Done'),
          ),
          h(
            'div',
            { class: 'field pg-system' },
            h('label', { for: 'pg-system' }, 'System prompt ', h('span', { class: 'muted' }, '(optional)')),
            h('textarea', {
              id: 'pg-system',
              rows: 3,
              placeholder: 'e.g. Answer in one short paragraph.',
              value: conversation.system,
              onInput: (e: Event) => updateCurrent({ system: (e.currentTarget as HTMLTextAreaElement).value }),
            }),
          ),
          h(Parameters, { conversation, status }),
          h(Functions, { conversation }),
        ),
    ),
    showHelp && h(ShortcutsHelp, { onClose: () => setShowHelp(false) }),
  );
}

/** Closes the "⋯" menu a button of it was pressed in. */
function closeMenu(e: Event): void {
  (e.currentTarget as HTMLElement).closest('details')?.removeAttribute('open');
}
