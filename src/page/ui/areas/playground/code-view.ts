// The Playground's current chat as code (fetch or the openai SDK): the request the next send makes.
import { h } from 'preact';
import { useState } from 'preact/hooks';
import { BASE_URL } from '../../kit/api';
import type { Conversation } from './state/chat';
import { conversationRequest, mcpTokenPlaceholder, requestCode } from './state/conversation-request';
import { serversOn } from './state/mcp-servers';
import { CodeBlock } from '../../kit/widgets';

/** `onClose`: its Close button (Escape too: the Playground's shortcuts). */
export function CodeView(props: { conversation: Conversation; onClose: () => void }) {
  const [kind, setKind] = useState<'fetch' | 'openai'>('fetch');
  const servers = serversOn(props.conversation.mcp);
  const body = conversationRequest(props.conversation, props.conversation.draft.trim() || 'Your next message', servers);
  const tokens = servers.filter((s) => s.token).map((s) => mcpTokenPlaceholder(s.label));
  return h(
    'section',
    { class: 'card pg-code', 'aria-labelledby': 'pg-code-title' },
    h(
      'div',
      { class: 'pg-panel-head' },
      h('h2', { id: 'pg-code-title' }, 'This chat as code'),
      h('button', { type: 'button', class: 'button small', onClick: props.onClose, 'aria-keyshortcuts': 'Escape' }, 'Close'),
    ),
    h(
      'p',
      { class: 'hint' },
      'The request the next send makes, with the message in the composer; put your key in place of YOUR_INPAGE_KEY',
      tokens.length > 0 ? ` and each MCP server's token in place of ${tokens.join(', ')} (the Playground never shows a token).` : '.',
    ),
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
