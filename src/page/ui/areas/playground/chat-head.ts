// The head of the chat on screen: the Chats button (a drawer on a phone), the title, the model picker with its
// hint, the Settings button, and the "⋯" menu (code, shortcuts, duplicate, export).
import { h } from 'preact';
import { modelIds, variantOf } from '#shared/catalog';
import type { ModelId } from '#shared/variants';
import type { ModelStatus } from '#shared/wire/engine-port';
import { sizeText, type ShownSize } from '../../kit/download-ask';
import { thinkingHere } from '../../kit/model-facts';
import { STATE_LABEL, runnableFirst } from '../../kit/model-state';
import { cardOf } from '../../../model-cards';
import { panelButton, type Panel } from './panel';
import { duplicateConversation, updateCurrent, type Conversation } from './state/chat';
import { exportJson, exportMarkdown, exportName } from './state/conversation-request';
import { serversOn } from './state/mcp-servers';

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

interface PickerProps {
  conversation: Conversation;
  model: ModelId;
  status: ModelStatus | undefined;
  downloadSize: ShownSize | null | undefined;
  /** Every model's status on this device (null while unknown). */
  statuses: readonly ModelStatus[] | null;
  /** Whether the Playground's key reaches a model. */
  reachable: (id: ModelId) => boolean;
}

function ModelPicker(props: PickerProps) {
  const { model, conversation, status, downloadSize } = props;
  return h(
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
      // Those that run first, each with the model's name, its state, and (the chosen one, not downloaded yet) its download.
      runnableFirst(
        modelIds().filter((id) => !variantOf(id)?.embeddings),
        props.statuses,
      ).map((id) => {
        const found = props.statuses?.find((m) => m.id === id);
        const state = found?.state;
        const can = props.reachable(id);
        const card = cardOf(found);
        const label =
          found?.serving?.engine === 'upstream'
            ? 'answered upstream'
            : state === 'unavailable'
              ? 'cannot run here'
              : state
                ? STATE_LABEL[state].toLowerCase()
                : '';
        const size = id === model && state === 'not_downloaded' && downloadSize?.bytes != null ? ` · ${sizeText(downloadSize)}` : '';
        return h(
          'option',
          { key: id, value: id, disabled: !can },
          `${id}${card ? ` · ${card.family} ${card.size}` : ''}${label ? ` · ${label}` : ''}${size}${can ? '' : ' · key cannot reach it'}`,
        );
      }),
    ),
    h('p', { class: 'visually-hidden', id: 'pg-model-hint' }, modelHint(model, conversation, status, downloadSize)),
  );
}

/** Closes the "⋯" menu a button of it was pressed in. */
function closeMenu(e: Event): void {
  (e.currentTarget as HTMLElement).closest('details')?.removeAttribute('open');
}

interface MenuProps {
  conversation: Conversation;
  busy: boolean;
  showCode: boolean;
  toggleCode: () => void;
  showHelp: () => void;
}

/** One item of the "⋯" menu: what it says, when it is greyed out, what it does (the menu closes first). */
interface MenuItem {
  label: string;
  run: () => void;
  disabled?: boolean;
  attributes?: Record<string, string>;
}

function MoreMenu(props: MenuProps) {
  const { conversation, busy, showCode } = props;
  const empty = conversation.turns.length === 0;
  const items: MenuItem[] = [
    { label: showCode ? 'Hide code' : 'View as code', run: props.toggleCode, attributes: { 'aria-expanded': showCode ? 'true' : 'false' } },
    { label: 'Keyboard shortcuts', run: props.showHelp, attributes: { 'aria-keyshortcuts': 'Shift+?' } },
    { label: 'Duplicate chat', run: duplicateConversation, disabled: empty || busy },
    {
      label: 'Export JSON',
      run: () => download(exportName(conversation, 'json'), 'application/json', exportJson(conversation, serversOn(conversation.mcp))),
      disabled: empty,
    },
    {
      label: 'Export Markdown',
      run: () => download(exportName(conversation, 'md'), 'text/markdown', exportMarkdown(conversation)),
      disabled: empty,
    },
  ];
  return h(
    'details',
    { class: 'pg-more' },
    h('summary', { class: 'button small', 'aria-label': 'More chat actions' }, '⋯'),
    h(
      'div',
      { class: 'pg-more-menu card' },
      // Keyed by place, not by label: "View as code" becomes "Hide code" on the same button, which keeps the focus.
      items.map((item, place) =>
        h(
          'button',
          {
            key: place,
            type: 'button',
            class: 'button small',
            disabled: item.disabled,
            ...item.attributes,
            onClick: (e: Event) => {
              closeMenu(e);
              item.run();
            },
          },
          item.label,
        ),
      ),
    ),
  );
}

interface ChatHeadProps extends PickerProps, MenuProps {
  chats: Panel;
  settings: Panel;
  /** How many settings of the chat differ from the defaults (the system prompt counts as one). */
  settingsCount: number;
}

export function ChatHead(props: ChatHeadProps) {
  const { conversation, chats, settings, settingsCount } = props;
  return h(
    'div',
    { class: 'pg-head' },
    h('button', { class: 'button small pg-chats-button', ...panelButton(chats, 'pg-chats-panel') }, h('span', { 'aria-hidden': 'true' }, '☰ '), 'Chats'),
    h('h2', { class: 'pg-title', 'data-testid': 'chat-title', title: conversation.title, tabIndex: -1 }, conversation.title),
    h(ModelPicker, props),
    h(
      'button',
      { class: 'button small', ...panelButton(settings, 'pg-settings') },
      'Settings',
      settingsCount ? h('span', { class: 'muted' }, ` (${settingsCount})`) : null,
    ),
    h(MoreMenu, props),
  );
}
