// The Playground's MCP servers (chat settings): add one (label, URL, optional token, whether calls ask first), see
// its tools, turn it on for this chat, remove it. The servers and their tokens are kept by state/mcp-servers.ts.
import { h } from 'preact';
import { useState } from 'preact/hooks';
import { setMcpOn, type Conversation, type Sender } from './state/chat';
import { approveDownload } from '../../kit/download-ask';
import { addMcpServer, displayToken, listServerTools, mcp, removeMcpServer, serverProblem, updateMcpServer, type McpServer } from './state/mcp-servers';

function ServerRow(props: { server: McpServer; conversation: Conversation; sender: Sender | null; checking: boolean; check: () => void }) {
  const { server, conversation } = props;
  const on = conversation.mcp?.includes(server.id) ?? false;
  const id = `pg-mcp-${server.id}`;
  return h(
    'li',
    { class: 'mcp-server', 'data-testid': 'mcp-server' },
    h(
      'label',
      { class: 'check' },
      h('input', { type: 'checkbox', checked: on, onChange: (e: Event) => setMcpOn(server.id, (e.currentTarget as HTMLInputElement).checked) }),
      h('span', null, ' Use ', h('strong', null, server.label), ' in this chat'),
    ),
    h('p', { class: 'hint mono' }, server.url, ' · ', displayToken(server.token)),
    h(
      'p',
      { class: server.error ? 'hint error-text' : 'hint', 'data-testid': 'mcp-tools' },
      props.checking
        ? 'Listing its tools…'
        : server.error
          ? `Its tools could not be listed: ${server.error}`
          : server.tools === null
            ? 'Tools not listed yet.'
            : server.tools.length === 0
              ? 'It offers no tools.'
              : `Tools: ${server.tools.map((t) => t.name).join(', ')}`,
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: `${id}-approval` }, 'Calls'),
      h(
        'select',
        {
          id: `${id}-approval`,
          value: server.approval,
          onChange: (e: Event) => void updateMcpServer(server, { approval: (e.currentTarget as HTMLSelectElement).value as McpServer['approval'] }),
        },
        h('option', { value: 'always' }, 'Ask before each call'),
        h('option', { value: 'never' }, 'Run without asking'),
      ),
    ),
    h(
      'div',
      { class: 'turn-actions' },
      h('button', { type: 'button', class: 'button small', disabled: !props.sender || props.checking, onClick: props.check }, 'List tools'),
      h(
        'button',
        {
          type: 'button',
          class: 'button small',
          onClick: () => {
            setMcpOn(server.id, false);
            void removeMcpServer(server.id);
          },
        },
        'Remove',
      ),
    ),
  );
}

/** The MCP servers section of the chat settings. */
export function McpServers(props: { conversation: Conversation; sender: Sender | null }) {
  const { conversation, sender } = props;
  const [label, setLabel] = useState('');
  const [url, setUrl] = useState('');
  const [token, setToken] = useState('');
  const [approval, setApproval] = useState<McpServer['approval']>('always');
  const [problem, setProblem] = useState<string | null>(null);
  const [checking, setChecking] = useState<string[]>([]);
  const check = (server: McpServer) => {
    if (!sender) return;
    setChecking((c) => [...c, server.id]);
    // Listing runs a (short) request on the chat's model: a large download is asked first, as for a message.
    void approveDownload(conversation.model)
      .then((ok) => (ok ? listServerTools(sender.key, conversation.model, server) : undefined))
      .finally(() => setChecking((c) => c.filter((id) => id !== server.id)));
  };
  const add = async (e: Event) => {
    e.preventDefault();
    const fields = { label: label.trim(), url: url.trim(), token: token.trim(), approval };
    const wrong = serverProblem(fields.label, fields.url);
    setProblem(wrong);
    if (wrong) return;
    const server = await addMcpServer(fields);
    setMcpOn(server.id, true);
    setLabel('');
    setUrl('');
    setToken('');
    check(server);
  };
  const on = mcp.servers.filter((s) => conversation.mcp?.includes(s.id)).length;
  return h(
    'details',
    { class: 'pg-mcp', open: mcp.servers.length > 0 },
    h('summary', null, 'MCP servers', on ? h('span', { class: 'muted' }, ` (${on} on)`) : null),
    h(
      'p',
      { class: 'hint' },
      'Tools on remote MCP servers. With a server on, this chat asks through /v1/responses (without the functions above) and the service calls the server from this page; only servers this deployment allows (its mcpServers setting) can be reached. A token is kept in this browser only, never in the chat or its export.',
    ),
    mcp.servers.length > 0 &&
      h(
        'ul',
        { class: 'mcp-servers' },
        mcp.servers.map((server) =>
          h(ServerRow, { key: server.id, server, conversation, sender, checking: checking.includes(server.id), check: () => check(server) }),
        ),
      ),
    h(
      'form',
      { class: 'mcp-add', onSubmit: (e: Event) => void add(e), 'aria-labelledby': 'pg-mcp-add-title' },
      h('p', { class: 'mcp-add-title', id: 'pg-mcp-add-title' }, 'Add an MCP server'),
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'pg-mcp-label' }, 'Label'),
        h('input', {
          id: 'pg-mcp-label',
          value: label,
          placeholder: 'e.g. docs',
          autocomplete: 'off',
          onInput: (e: Event) => setLabel((e.currentTarget as HTMLInputElement).value),
        }),
      ),
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'pg-mcp-url' }, 'Server URL'),
        h('input', {
          id: 'pg-mcp-url',
          type: 'url',
          value: url,
          placeholder: 'https://mcp.example.com/mcp',
          autocomplete: 'off',
          onInput: (e: Event) => setUrl((e.currentTarget as HTMLInputElement).value),
        }),
      ),
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'pg-mcp-token' }, 'Token ', h('span', { class: 'muted' }, '(optional)')),
        h('input', {
          id: 'pg-mcp-token',
          type: 'password',
          value: token,
          autocomplete: 'off',
          onInput: (e: Event) => setToken((e.currentTarget as HTMLInputElement).value),
        }),
      ),
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'pg-mcp-approval' }, 'Calls'),
        h(
          'select',
          {
            id: 'pg-mcp-approval',
            value: approval,
            onChange: (e: Event) => setApproval((e.currentTarget as HTMLSelectElement).value as McpServer['approval']),
          },
          h('option', { value: 'always' }, 'Ask before each call'),
          h('option', { value: 'never' }, 'Run without asking'),
        ),
      ),
      problem && h('p', { class: 'hint error-text', role: 'alert' }, problem),
      h('button', { type: 'submit', class: 'button small primary' }, 'Add server'),
    ),
  );
}
