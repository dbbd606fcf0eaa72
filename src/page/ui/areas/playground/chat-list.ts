// The Playground's chat list: new, select, rename and delete chats. The list is one Tab stop (roving focus: the
// arrow keys, Home and End move in it; F2 renames, Delete deletes); each chat's actions sit behind its own "⋯"
// menu, and each row tells when the chat last changed.
import { h } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { adoptConversation, newConversation, removeConversation, renameConversation, selectConversation, useChat, type Conversation } from './state/chat';
import { formatRelative } from '../../kit/format';
import { preferredModel } from '../../kit/model-state';
import { parseExport } from './state/chat-import';

/** Focus on the row of a chat (its open button), or on the list's first row. */
function focusChatRow(id?: string | null): void {
  requestAnimationFrame(() => {
    const rows = Array.from(document.querySelectorAll<HTMLElement>('.pg-chats .chat-open'));
    (rows.find((row) => row.dataset.id === id) ?? rows.find((row) => row.getAttribute('aria-current') === 'true') ?? rows[0])?.focus({ preventScroll: true });
  });
}

/** A chat's row while it is renamed: the name field, Save and Cancel (Escape too). */
function RenameForm(props: { conversation: Conversation; done: () => void }) {
  const { conversation } = props;
  const [name, setName] = useState(conversation.title);
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.select(), []);
  return h(
    'li',
    { class: 'chat-item renaming' },
    h(
      'form',
      {
        onSubmit: (e: Event) => {
          e.preventDefault();
          renameConversation(conversation.id, name);
          props.done();
        },
      },
      h('label', { for: `rename-${conversation.id}`, class: 'visually-hidden' }, `New name for the chat “${conversation.title}”`),
      h('input', {
        id: `rename-${conversation.id}`,
        ref: field,
        value: name,
        maxLength: 120,
        onInput: (e: Event) => setName((e.currentTarget as HTMLInputElement).value),
        onKeyDown: (e: KeyboardEvent) => {
          if (e.key === 'Escape') props.done();
        },
      }),
      h('button', { type: 'submit', class: 'button small primary', disabled: !name.trim() }, 'Save'),
      h('button', { type: 'button', class: 'button small', onClick: props.done }, 'Cancel'),
    ),
  );
}

/** Delete asked: Delete now, or Keep. */
function ConfirmDelete(props: { conversation: Conversation; keep: () => void }) {
  const { conversation } = props;
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => confirm.current?.focus(), []);
  const title = conversation.title;
  return h(
    'span',
    { class: 'chat-tools', role: 'group', 'aria-label': `Delete the chat “${title}”?` },
    h(
      'button',
      {
        type: 'button',
        class: 'button small danger',
        ref: confirm,
        // The focus goes to the chat that opens in its place.
        onClick: () => void removeConversation(conversation.id).then(() => focusChatRow()),
        'aria-label': `Delete the chat “${title}” now`,
      },
      'Delete',
    ),
    h('button', { type: 'button', class: 'button small', onClick: props.keep, 'aria-label': `Keep the chat “${title}”` }, 'Keep'),
  );
}

/** The row's "⋯" menu: Rename, Delete. */
function ChatMenu(props: { title: string; rename: () => void; remove: () => void }) {
  const { title } = props;
  return h(
    'details',
    { class: 'chat-menu' },
    // Not a Tab stop of its own: the keyboard has F2 and Delete on the row, and the chat's "⋯" menu.
    h('summary', { class: 'button small', tabIndex: -1, 'aria-label': `Actions for the chat “${title}”` }, '⋯'),
    h(
      'div',
      { class: 'chat-menu-items card' },
      h('button', { type: 'button', class: 'button small', onClick: props.rename, 'aria-label': `Rename the chat “${title}”` }, 'Rename'),
      h('button', { type: 'button', class: 'button small', onClick: props.remove, 'aria-label': `Delete the chat “${title}”` }, 'Delete'),
    ),
  );
}

function ConversationItem(props: {
  conversation: Conversation;
  selected: boolean;
  tabbable: boolean;
  streaming: boolean;
  /** Where the search matched in its messages, if it did. */
  snippet: string | null;
  onPicked?: () => void;
  onFocus: () => void;
}) {
  const { conversation } = props;
  const [mode, setMode] = useState<'view' | 'rename' | 'delete'>('view');
  const title = conversation.title;
  /** Back to the row (after a rename, or a delete that was not confirmed). */
  const back = () => {
    setMode('view');
    focusChatRow(conversation.id);
  };
  if (mode === 'rename') return h(RenameForm, { conversation, done: back });
  const sent = conversation.turns.filter((t) => t.role === 'user').length;
  return h(
    'li',
    { class: `chat-item${props.selected ? ' selected' : ''}` },
    h(
      'button',
      {
        type: 'button',
        class: 'chat-open',
        'data-id': conversation.id,
        tabIndex: props.tabbable ? 0 : -1,
        'aria-current': props.selected ? 'true' : undefined,
        'aria-keyshortcuts': 'F2 Delete',
        onFocus: props.onFocus,
        onClick: () => {
          selectConversation(conversation.id);
          props.onPicked?.();
        },
        onKeyDown: (e: KeyboardEvent) => {
          if (e.key === 'F2') {
            e.preventDefault();
            setMode('rename');
          } else if (e.key === 'Delete') {
            e.preventDefault();
            setMode('delete');
          }
        },
      },
      h('span', { class: 'chat-title' }, title),
      h('span', { class: 'chat-meta' }, `${formatRelative(conversation.updatedAt)} · ${sent} sent${props.streaming ? ' · answering…' : ''}`),
      props.snippet && h('span', { class: 'chat-snippet', 'data-testid': 'chat-snippet' }, props.snippet),
    ),
    mode === 'delete'
      ? h(ConfirmDelete, { conversation, keep: back })
      : h(ChatMenu, { title, rename: () => setMode('rename'), remove: () => setMode('delete') }),
  );
}

/** Characters of a message shown on each side of a search's match. */
const SNIPPET_AROUND = 30;

/**
 * Where a search matched in a chat's messages: the words around the first match of a search word, as one line
 * ("…the tokenizer splits words…"); null when only the title matched (or nothing is searched).
 */
function snippetOf(conversation: Conversation, words: string[]): string | null {
  for (const word of words) {
    for (const turn of conversation.turns) {
      if (turn.role === 'note') continue;
      const line = turn.text.replace(/\s+/g, ' ');
      const at = line.toLowerCase().indexOf(word);
      if (at < 0) continue;
      // Whole words: out to the spaces beyond the characters around it.
      let from = Math.max(0, at - SNIPPET_AROUND);
      if (from > 0) from = line.lastIndexOf(' ', from) + 1;
      let to = Math.min(line.length, at + word.length + SNIPPET_AROUND);
      if (to < line.length) to = line.indexOf(' ', to) < 0 ? line.length : line.indexOf(' ', to);
      const cut = line.slice(from, to).trim();
      return `${from > 0 ? '…' : ''}${to < line.length ? `${cut.replace(/[\s,.;:]+$/, '')}…` : cut}`;
    }
  }
  return null;
}

/** Whether a chat's title or any of its messages holds every word of the search. */
function matches(conversation: Conversation, words: string[]): boolean {
  if (words.length === 0) return true;
  const text = [conversation.title, ...conversation.turns.map((t) => t.text)].join('\n').toLowerCase();
  return words.every((word) => text.includes(word));
}

/** `onPicked`: a chat was opened or started (the phone's drawer closes); `onClose`: the drawer's close button. */
export function ConversationList(props: { onPicked?: () => void; onClose?: () => void }) {
  const chat = useChat();
  const [search, setSearch] = useState('');
  const [active, setActive] = useState<string | null>(null);
  const [importError, setImportError] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = chat.list.filter((c) => matches(c, words));
  // The one row in the Tab order: the one last focused, else the chat on screen, else the first.
  const tabbable = shown.find((c) => c.id === active)?.id ?? shown.find((c) => c.id === chat.currentId)?.id ?? shown[0]?.id ?? null;
  const move = (e: KeyboardEvent) => {
    const rows = Array.from((e.currentTarget as HTMLElement).querySelectorAll<HTMLElement>('.chat-open'));
    const at = rows.indexOf(document.activeElement as HTMLElement);
    if (at < 0) return;
    const to = e.key === 'ArrowDown' ? at + 1 : e.key === 'ArrowUp' ? at - 1 : e.key === 'Home' ? 0 : e.key === 'End' ? rows.length - 1 : null;
    if (to === null) return;
    e.preventDefault();
    rows[Math.max(0, Math.min(rows.length - 1, to))]?.focus();
  };
  const pickImport = async (e: Event) => {
    const input = e.currentTarget as HTMLInputElement;
    const file = input.files?.[0];
    input.value = '';
    setImportError(null);
    if (!file) return;
    const parsed = parseExport(await file.text(), preferredModel());
    if (typeof parsed === 'string') return setImportError(parsed);
    adoptConversation(parsed);
    props.onPicked?.();
    focusChatRow();
  };
  return h(
    'nav',
    { class: 'pg-chats', 'aria-label': 'Chats' },
    h(
      'div',
      { class: 'pg-chats-head' },
      h('h2', null, 'Chats'),
      h(
        'button',
        {
          type: 'button',
          class: 'button small',
          'aria-keyshortcuts': 'Alt+Shift+N',
          onClick: () => {
            newConversation();
            props.onPicked?.();
          },
        },
        'New chat',
      ),
      h('input', {
        ref: fileInput,
        id: 'pg-import',
        type: 'file',
        accept: 'application/json,.json',
        class: 'visually-hidden',
        tabIndex: -1,
        onChange: (e: Event) => void pickImport(e),
        'aria-label': 'Exported chat to import',
      }),
      h('button', { type: 'button', class: 'button small', onClick: () => fileInput.current?.click() }, 'Import'),
      props.onClose && h('button', { type: 'button', class: 'button small pg-drawer-close', onClick: props.onClose, 'aria-label': 'Close the chats' }, 'Close'),
    ),
    importError && h('p', { class: 'notice notice-error', role: 'alert' }, importError),
    chat.list.length > 1 &&
      h(
        'div',
        { class: 'pg-search' },
        h('label', { for: 'pg-search', class: 'visually-hidden' }, 'Search chats'),
        h('input', {
          id: 'pg-search',
          type: 'search',
          placeholder: 'Search chats',
          value: search,
          onInput: (e: Event) => setSearch((e.currentTarget as HTMLInputElement).value),
        }),
      ),
    words.length > 0 && shown.length === 0 && h('p', { class: 'muted', role: 'status' }, 'No chat has those words.'),
    h(
      'ul',
      { onKeyDown: move, 'aria-label': 'Your chats: arrow keys move, F2 renames, Delete deletes' },
      shown.map((c) =>
        h(ConversationItem, {
          key: c.id,
          conversation: c,
          selected: c.id === chat.currentId,
          tabbable: c.id === tabbable,
          streaming: c.id === chat.streamingId,
          snippet: snippetOf(c, words),
          onPicked: props.onPicked,
          onFocus: () => setActive(c.id),
        }),
      ),
    ),
  );
}
