// The Playground's chat list: new, select, rename and delete chats.
import { h } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { newConversation, removeConversation, renameConversation, selectConversation, useChat, type Conversation } from '../chat';

function ConversationItem(props: { conversation: Conversation; selected: boolean; streaming: boolean; onPicked?: () => void }) {
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
      { type: 'button', class: 'chat-open', 'aria-current': props.selected ? 'true' : undefined, onClick: () => { selectConversation(conversation.id); props.onPicked?.(); } },
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

/** `onPicked`: a chat was opened or started (the phone's drawer closes); `onClose`: the drawer's close button. */
/** Whether a chat's title or any of its messages holds every word of the search. */
function matches(conversation: Conversation, words: string[]): boolean {
  if (words.length === 0) return true;
  const text = [conversation.title, ...conversation.turns.map((t) => t.text)].join('\n').toLowerCase();
  return words.every((word) => text.includes(word));
}

export function ConversationList(props: { onPicked?: () => void; onClose?: () => void }) {
  const chat = useChat();
  const [search, setSearch] = useState('');
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = chat.list.filter((c) => matches(c, words));
  return h(
    'nav',
    { class: 'pg-chats', 'aria-label': 'Chats' },
    h(
      'div',
      { class: 'pg-chats-head' },
      h('h2', null, 'Chats'),
      h('button', { type: 'button', class: 'button small', onClick: () => { newConversation(); props.onPicked?.(); } }, 'New chat'),
      props.onClose && h('button', { type: 'button', class: 'button small pg-drawer-close', onClick: props.onClose, 'aria-label': 'Close the chats' }, 'Close'),
    ),
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
      null,
      shown.map((c) => h(ConversationItem, { key: c.id, conversation: c, selected: c.id === chat.currentId, streaming: c.id === chat.streamingId, onPicked: props.onPicked })),
    ),
  );
}
