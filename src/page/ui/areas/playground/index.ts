// Playground: chat with a variant through /v1, as any client would, with a key kept for this tab only. This
// file is the area; its parts beside it: the key chooser, the turns, the chat list, the parameters, the code view,
// the following of the newest answer (follow.ts); its conversations (state, sending, IndexedDB) in state/.
import { h } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { variantOf } from '#shared/catalog';
import type { ModelId } from '#shared/variants';
import type { ApiCallError } from '../../kit/api';
import { current, loadConversations, stop, updateCurrent, useChat, type Conversation, type Sender } from './state/chat';
import { useDownloadSize } from '../../kit/download-ask';
import { paramsProblem } from './state/conversation-request';
import { webGpuMissing } from '../../kit/device';
import { answerable } from '../../kit/model-facts';
import { preferredModel } from '../../kit/model-state';
import { checkSessionKey } from '../../session-key';
import { refreshKeys } from '../../startup';
import { useUi, type SessionKey, type UiState } from '../../store';
import { Notice } from '../../kit/widgets';
import { KeyChooser, KeyBar } from './key-chooser';
import { TurnView } from './turns';
import { ConversationList } from './chat-list';
import { ChatHead } from './chat-head';
import { Composer } from './composer';
import { changedParams, SettingsPanel } from './parameters';
import { CodeView } from './code-view';
import { nextFit } from './state/context-budget';
import { useFollow } from './follow';
import { focusComposer } from './focus';
import { usePanel } from './panel';
import { ShortcutsHelp, useShortcuts } from './shortcuts';

/**
 * The chat's model on this device: whether the Playground's key reaches each model, the model's status and download
 * size, and, when this device cannot run it, the model offered instead.
 */
function useChatModel(ui: UiState, conversation: Conversation | null, model: ModelId) {
  const record = ui.sessionKey ? ui.keys.find((k) => k.id === ui.sessionKey!.id) : undefined;
  const reachable = (id: ModelId) => !record || record.models.includes(id);
  const status = ui.models?.find((m) => m.id === model);
  const downloadSize = useDownloadSize(model, status?.state === 'not_downloaded' && ui.engine !== null);
  // A variant this device cannot run (too large for it, say): the message is not sent, and a runnable one is offered.
  const cannotRun = status && !answerable(status) ? status : null;
  const alternative = cannotRun ? preferredModel(reachable) : null;
  // A chat nobody has written in or picked a model for moves to a model this device runs, once the engine says
  // the one it has cannot run here (on every visit: the engine says so again after a reload).
  useEffect(() => {
    if (cannotRun && conversation && conversation.turns.length === 0 && !conversation.modelChosen && alternative && alternative !== model)
      updateCurrent({ model: alternative });
  }, [cannotRun, conversation?.id, alternative]);
  return { reachable, status, downloadSize, cannotRun, alternative };
}

/** Sends with the Playground's key; after each answer the keys' usage is read again, and a refused key checked. */
function senderOf(key: SessionKey | null): Sender | null {
  return key
    ? {
        key: key.key,
        onAnswered: (failure: ApiCallError | null) => {
          void refreshKeys();
          if (failure?.code === 'invalid_api_key') void checkSessionKey();
        },
      }
    : null;
}

function NoWebGpuNotice() {
  return h(
    Notice,
    { kind: 'warn' },
    h('strong', null, 'No WebGPU in this browser: '),
    'the models cannot answer here. ',
    h('a', { href: '#models' }, 'What to do about it'),
    '.',
  );
}

/**
 * The chat fills the screen below what is above it: the column's least height is the screen's less its top on
 * the page (`--pg-top`), so the message box sits at the bottom of the screen also in an empty chat, with
 * nothing to scroll. Measured after every render (a notice above may come or go) and on resize.
 */
function useFullHeight() {
  const main = useRef<HTMLDivElement>(null);
  const measure = () => {
    const el = main.current;
    if (!el) return;
    const top = el.getBoundingClientRect().top + scrollY;
    if (el.style.getPropertyValue('--pg-top') !== `${top}px`) el.style.setProperty('--pg-top', `${top}px`);
  };
  useLayoutEffect(measure);
  useEffect(() => {
    addEventListener('resize', measure);
    return () => removeEventListener('resize', measure);
  }, []);
  return main;
}

/** Whether the next message carries the draft's image (a model that reads images). */
function sendsImage(conversation: Conversation): boolean {
  return Boolean(conversation.draftImage && variantOf(conversation.model)?.vision);
}

export function PlaygroundArea() {
  const ui = useUi();
  const chat = useChat();
  const [showCode, setShowCode] = useState(false);
  const [showHelp, setShowHelp] = useState(false);
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

  const key = ui.sessionKey;
  const { reachable, status, downloadSize, cannotRun, alternative } = useChatModel(ui, conversation, model);
  const busy = chat.streamingId !== null;
  const sender = senderOf(key);
  const text = conversation?.draft ?? '';
  const context = status?.context_length ?? null;
  const fits = !conversation || context === null || nextFit(conversation, text.trim(), context, sendsImage(conversation)).fits;
  const problem = conversation ? paramsProblem(conversation.params) : null;
  const error = chat.error && chat.error.conversationId === conversation?.id ? chat.error : null;

  const main = useFullHeight();
  const turns = conversation?.turns ?? [];
  const lastAssistant = turns.map((t) => t.role).lastIndexOf('assistant');
  const changed = conversation ? changedParams(conversation, status) : 0;
  const settingsCount = (conversation?.system.trim() ? 1 : 0) + changed;
  return h(
    'section',
    { class: 'area playground', 'aria-labelledby': 'area-title' },
    h('h1', { id: 'area-title', tabIndex: -1 }, 'Playground'),
    webGpuMissing(ui) && h(NoWebGpuNotice, null),
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
          { class: 'pg-main', ref: main },
          h(ChatHead, {
            conversation,
            model,
            status,
            downloadSize,
            statuses: ui.models,
            reachable,
            chats,
            settings,
            settingsCount,
            busy,
            showCode,
            toggleCode: () => setShowCode(!showCode),
            showHelp: () => setShowHelp(true),
          }),
          showCode && h(CodeView, { conversation, onClose: closeCode }),
          h(
            'ol',
            { class: 'turns', ref: log, 'aria-label': 'Conversation' },
            turns.length === 0 && h('li', { class: 'empty' }, 'Say something to start. Answers stream in as the model writes them.'),
            turns.map((turn, index) =>
              h(TurnView, {
                key: turn.id,
                turn,
                index,
                streaming: chat.streamingId === conversation.id,
                busy,
                last: index === lastAssistant,
                final: index === turns.length - 1,
                sender,
              }),
            ),
          ),
          h(Composer, {
            conversation,
            text,
            model,
            status,
            rate: ui.rates[model],
            hasKey: key !== null,
            sender,
            busy,
            fits,
            problem,
            cannotRun,
            alternative,
            form: composer,
            follow,
            stopAnswer,
            vision: variantOf(model)!.vision === true,
            error,
          }),
        ),
      conversation && h(SettingsPanel, { conversation, status, settings, sender }),
    ),
    showHelp && h(ShortcutsHelp, { onClose: () => setShowHelp(false) }),
  );
}
