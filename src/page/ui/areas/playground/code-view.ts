// The Playground's current chat as code (fetch or the openai SDK): the request the next send makes.
import { h } from 'preact';
import { useState } from 'preact/hooks';
import { BASE_URL } from '../../kit/api';
import type { Conversation } from './state/chat';
import { conversationRequest, requestCode } from './state/conversation-request';
import { CodeBlock } from '../../kit/widgets';

/** `onClose`: its Close button (Escape too: the Playground's shortcuts). */
export function CodeView(props: { conversation: Conversation; onClose: () => void }) {
  const [kind, setKind] = useState<'fetch' | 'openai'>('fetch');
  const body = conversationRequest(props.conversation, props.conversation.draft.trim() || 'Your next message');
  return h(
    'section',
    { class: 'card pg-code', 'aria-labelledby': 'pg-code-title' },
    h(
      'div',
      { class: 'pg-panel-head' },
      h('h2', { id: 'pg-code-title' }, 'This chat as code'),
      h('button', { type: 'button', class: 'button small', onClick: props.onClose, 'aria-keyshortcuts': 'Escape' }, 'Close'),
    ),
    h('p', { class: 'hint' }, 'The request the next send makes, with the message in the composer; put your key in place of YOUR_INPAGE_KEY.'),
    h(
      'div',
      { class: 'segmented', role: 'group', 'aria-label': 'Client' },
      (['fetch', 'openai'] as const).map((k) =>
        h(
          'button',
          { key: k, type: 'button', class: 'button small', 'aria-pressed': kind === k ? 'true' : 'false', onClick: () => setKind(k) },
          k === 'fetch' ? 'fetch' : 'openai SDK',
        ),
      ),
    ),
    h(CodeBlock, { code: requestCode(kind, BASE_URL, body), label: `${kind === 'fetch' ? 'fetch' : 'openai SDK'} code of this chat`, id: 'pg-code-text' }),
  );
}
