// The Playground's turns: a user's (edit and resend), an assistant's (thinking, answer, stats, regenerate).
import { h } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import {
  answerApproval,
  CONTINUE_PROMPT,
  continuable,
  continueAnswer,
  current,
  editAndResend,
  regenerate,
  sendToolResults,
  showBranch,
  showVersion,
  type Conversation,
  type Sender,
  type Turn,
} from './state/chat';
import { nextFit } from './state/context-budget';
import type { McpItem } from './state/conversation-db';
import { getState } from '../../store';
import { approveDownload } from '../../kit/download-ask';
import { formatDecimal, formatInteger } from '../../kit/format';
import { CopyButton, Markdown } from '../../kit/widgets';
import { ErrorText } from '../../kit/plain-error';

/** The current chat's model may download now (asked once over 100 MB; see download-ask.ts). */
function askForCurrentModel(): Promise<boolean> {
  const model = current()?.model;
  return model ? approveDownload(model) : Promise.resolve(true);
}

/** Whether the chat's context has room to continue its last answer (unknown context: it may). */
function roomToContinue(conversation: Conversation): boolean {
  const context = getState().models?.find((m) => m.id === conversation.model)?.context_length;
  return !context || nextFit(conversation, CONTINUE_PROMPT, context).fits;
}

function seconds(ms: number): string {
  return ms < 10_000 ? formatDecimal(ms / 1000) : formatInteger(ms / 1000);
}

function Stats(props: { turn: Turn }) {
  const { turn } = props;
  const s = turn.stats;
  const parts: string[] = [];
  if (turn.status === 'stopped') parts.push('Stopped');
  if (turn.status === 'interrupted') parts.push('Interrupted by reload');
  if (s) {
    const split = s.reasoningTokens ? `: ${formatInteger(s.reasoningTokens)} thinking, ${formatInteger(s.tokens - s.reasoningTokens)} answer` : '';
    parts.push(`${s.exact ? '' : '≈'}${formatInteger(s.tokens)} token${s.tokens === 1 ? '' : 's'}${split}`);
    // A rate needs at least two tokens: one token's "rate" is only the time between two chunks.
    if (s.tokensPerSecond !== null && s.tokens > 1) {
      parts.push(`${s.tokensPerSecond >= 100 ? formatInteger(s.tokensPerSecond) : formatDecimal(s.tokensPerSecond)} tokens/s`);
    }
    if (s.firstTokenMs !== null) {
      parts.push(`first token after ${s.firstTokenMs < 1000 ? `${formatInteger(s.firstTokenMs)} ms` : `${formatDecimal(s.firstTokenMs / 1000)} s`}`);
    }
    if (s.finish === 'length') parts.push('cut at the length limit');
    // Hybrid: where the answer ran (docs/hybrid.md).
    const host = /^upstream(?:; host=(.+))?$/.exec(s.servedBy ?? '');
    if (host) parts.push(`answered by the upstream${host[1] ? ` ${host[1]}` : ''}`);
    else if (s.servedBy === 'local') parts.push('answered on this device');
  }
  return parts.length ? h('p', { class: 'turn-stats', 'data-testid': 'stats' }, parts.join(' · ')) : null;
}

interface TurnProps {
  turn: Turn;
  index: number;
  streaming: boolean;
  busy: boolean;
  last: boolean;
  /** The chat's last turn (its function calls wait for results). */
  final: boolean;
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
    turn.documents?.length &&
      h(
        'ul',
        { class: 'document-chips', 'aria-label': 'Attached documents' },
        turn.documents.map((doc, i) =>
          h(
            'li',
            { class: 'attachment document', key: `${i}-${doc.name}`, 'data-testid': 'turn-document' },
            h('span', { class: 'document-name' }, doc.name),
            h('span', { class: 'muted' }, ` ${doc.text.length.toLocaleString('en')} characters`),
          ),
        ),
      ),
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
          h('p', { class: 'hint' }, 'Sending again starts a new version of this message; this one and its answers stay, a click away (‹ ›).'),
        )
      : h('p', { class: 'user-text' }, turn.text),
    !editing &&
      h(
        'div',
        { class: 'turn-actions' },
        turn.branches && h(Branches, { turn, busy: props.busy }),
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

/**
 * The folded thinking's summary: how long it took, when that was measured (a tenth of a second at least: thinking
 * that arrived all at once has no duration to tell), else its tokens.
 */
function thoughtLabel(turn: Turn): string {
  if (turn.thoughtMs !== undefined && turn.thoughtMs >= 100) return `Thought for ${seconds(turn.thoughtMs)} s`;
  const tokens = turn.stats?.reasoningTokens;
  return tokens ? `Thought: ${formatInteger(tokens)} token${tokens === 1 ? '' : 's'}` : 'Thinking';
}

function AssistantTurn(props: TurnProps) {
  const { turn } = props;
  const conversation = current();
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
        h('summary', null, thinkingNow ? 'Thinking…' : thoughtLabel(turn)),
        h('div', { class: 'thinking-text' }, turn.reasoning),
      ),
    turn.mcp?.length ? h(McpCards, { turn, last: props.last && props.final, busy: props.busy, sender: props.sender }) : null,
    turn.text
      ? h(Markdown, { text: turn.text, class: 'answer', final: !streaming })
      : streaming && !turn.reasoning && !turn.toolCalls && !turn.mcp?.length && h('p', { class: 'muted waiting' }, 'Waiting for the first token…'),
    turn.toolCalls && h(ToolCalls, { turn, open: props.final && !streaming && turn.status === 'done', busy: props.busy, sender: props.sender }),
    turn.status === 'failed' &&
      h(
        'div',
        { class: 'notice notice-error turn-error', role: 'alert' },
        h(ErrorText, { message: turn.error ?? 'the request failed.', before: 'The answer broke off: ', after: ' What came is kept; Regenerate asks again.' }),
      ),
    h(Stats, { turn }),
    !streaming &&
      h(
        'div',
        { class: 'turn-actions' },
        turn.versions && h(Versions, { turn, busy: props.busy, last: props.last }),
        turn.text && h(CopyButton, { text: turn.text, label: `Copy the answer (turn ${props.index + 1})` }),
        // Cut at the length limit, or interrupted by a reload: it can go on where it stopped.
        props.last &&
          props.final &&
          props.sender &&
          conversation &&
          continuable(conversation) &&
          h(
            'button',
            // A context with no room left for more: the choice beside the composer comes first.
            {
              type: 'button',
              class: 'button small primary',
              disabled: props.busy || !roomToContinue(conversation),
              onClick: () => void askForCurrentModel().then((ok) => ok && continueAnswer(props.sender!)),
              'aria-label': 'Continue the last answer',
            },
            'Continue',
          ),
        props.last &&
          props.sender &&
          h(
            'button',
            {
              type: 'button',
              class: 'button small',
              disabled: props.busy,
              onClick: () => void askForCurrentModel().then((ok) => ok && regenerate(props.sender!)),
              'aria-label': 'Regenerate the last answer',
            },
            'Regenerate',
          ),
      ),
  );
}

/** The functions an answer called, and (while they wait) a box for each result and "Send results". */
function ToolCalls(props: { turn: Turn; open: boolean; busy: boolean; sender: Sender | null }) {
  const calls = props.turn.toolCalls!;
  const [results, setResults] = useState<Record<string, string>>({});
  const waiting = props.open && props.sender !== null;
  const submit = (e: Event) => {
    e.preventDefault();
    if (props.sender && !props.busy) sendToolResults(props.sender, results);
  };
  return h(
    waiting ? 'form' : 'div',
    { class: 'tool-calls', onSubmit: waiting ? submit : undefined },
    calls.map((call) =>
      h(
        'div',
        { key: call.id, class: 'tool-call', 'data-testid': 'tool-call' },
        h('p', { class: 'tool-call-name' }, 'Calls ', h('code', null, call.name)),
        h('pre', { class: 'tool-call-args', 'aria-label': `Arguments of ${call.name}` }, h('code', null, call.arguments)),
        waiting && h('label', { for: `result-${call.id}` }, `Result of ${call.name}`),
        waiting &&
          h('textarea', {
            id: `result-${call.id}`,
            class: 'mono',
            rows: 2,
            placeholder: 'What the function returned (text or JSON)',
            value: results[call.id] ?? '',
            onInput: (e: Event) => setResults({ ...results, [call.id]: (e.currentTarget as HTMLTextAreaElement).value }),
          }),
      ),
    ),
    waiting &&
      h(
        'div',
        { class: 'turn-actions' },
        h(
          'button',
          { type: 'submit', class: 'button small primary', disabled: props.busy || calls.some((c) => !(results[c.id] ?? '').trim()) },
          calls.length === 1 ? 'Send the result' : 'Send the results',
        ),
      ),
  );
}

/** What a card says of an MCP call's state. */
function callState(item: McpItem): string {
  if (item.status === 'failed' || item.error) return 'failed';
  if (item.status === 'completed') return 'done';
  return 'running…';
}

/**
 * An answer's MCP items (through /v1/responses), a card each: a server's tool listing; a call with its arguments and
 * its result or error; an approval request with Approve / Deny while it waits (the last answer only), then the answer.
 */
function McpCards(props: { turn: Turn; last: boolean; busy: boolean; sender: Sender | null }) {
  const { turn } = props;
  return h(
    'div',
    { class: 'tool-calls mcp-items' },
    turn.mcp!.map((item) => {
      if (item.type === 'mcp_list_tools') {
        return h(
          'div',
          { key: item.id, class: 'tool-call mcp-card', 'data-testid': 'mcp-list-tools' },
          h(
            'p',
            { class: 'tool-call-name' },
            item.error
              ? `Could not list the tools of ${item.server_label}: ${item.error}`
              : `Tools of ${item.server_label}: ${item.tools?.length ? item.tools.join(', ') : 'none'}`,
          ),
        );
      }
      const asking = item.type === 'mcp_approval_request';
      const waiting = asking && !item.answer && props.last && props.sender !== null && turn.status === 'done';
      return h(
        'div',
        { key: item.id, class: `tool-call mcp-card${asking ? ' mcp-ask' : ''}`, 'data-testid': asking ? 'mcp-approval' : 'mcp-call' },
        h(
          'p',
          { class: 'tool-call-name' },
          asking ? 'Asks to call ' : 'Calls ',
          h('code', null, item.name ?? ''),
          ` on ${item.server_label}`,
          h(
            'span',
            { class: 'muted' },
            asking
              ? item.answer
                ? ` · ${item.answer}`
                : item.choice && waiting
                  ? ` · ${item.choice}, sent once every request here is answered`
                  : ' · waiting for you'
              : ` · ${callState(item)}`,
          ),
        ),
        h('pre', { class: 'tool-call-args', 'aria-label': `Arguments of ${item.name ?? 'the call'}` }, h('code', null, item.arguments || '{}')),
        !asking &&
          (item.error || item.output != null) &&
          h(
            'div',
            null,
            h('p', { class: 'hint' }, item.error ? 'Error' : 'Result'),
            h(
              'pre',
              { class: `tool-result${item.error ? ' error-text' : ''}`, 'aria-label': `Result of ${item.name ?? 'the call'}` },
              h('code', null, item.error ?? item.output ?? ''),
            ),
          ),
        waiting &&
          h(
            'div',
            { class: 'turn-actions' },
            h(
              'button',
              {
                type: 'button',
                class: 'button small primary',
                disabled: props.busy,
                'aria-pressed': item.choice === 'approved' ? 'true' : 'false',
                onClick: () => answerApproval(props.sender!, turn.id, item.id, true),
              },
              'Approve',
            ),
            h(
              'button',
              {
                type: 'button',
                class: 'button small',
                disabled: props.busy,
                'aria-pressed': item.choice === 'denied' ? 'true' : 'false',
                onClick: () => answerApproval(props.sender!, turn.id, item.id, false),
              },
              'Deny',
            ),
          ),
      );
    }),
  );
}

function ToolResult(props: TurnProps) {
  return h(
    'li',
    { class: 'turn tool', 'data-turn': props.index },
    h('p', { class: 'who' }, `Result of ${props.turn.name ?? 'the function'}`),
    h('pre', { class: 'tool-result' }, h('code', null, props.turn.text)),
  );
}

/** ‹ 2/3 ›: the versions of an edited message, each with the turns that followed it; any can be shown. */
function Branches(props: { turn: Turn; busy: boolean }) {
  const { turn } = props;
  const total = turn.branches!.length;
  const at = turn.branch ?? 0;
  if (total < 2) return null;
  return h(
    'span',
    { class: 'versions', role: 'group', 'aria-label': 'Versions of what you wrote' },
    h(
      'button',
      {
        type: 'button',
        class: 'button small',
        disabled: props.busy || at === 0,
        onClick: () => showBranch(turn.id, at - 1),
        'aria-label': 'Previous version of what you wrote',
      },
      '‹',
    ),
    h('span', { class: 'versions-at', 'data-testid': 'branch' }, `${at + 1}/${total}`),
    h(
      'button',
      {
        type: 'button',
        class: 'button small',
        disabled: props.busy || at === total - 1,
        onClick: () => showBranch(turn.id, at + 1),
        'aria-label': 'Next version of what you wrote',
      },
      '›',
    ),
  );
}

/** ‹ 2/3 ›: the versions of a regenerated answer; the last answer's can be switched. */
function Versions(props: { turn: Turn; busy: boolean; last: boolean }) {
  const { turn } = props;
  const total = Math.max(turn.versions!.length, (turn.version ?? 0) + 1);
  const at = turn.version ?? total - 1;
  if (total < 2) return null;
  const can = props.last && !props.busy;
  return h(
    'span',
    { class: 'versions', role: 'group', 'aria-label': 'Versions of this answer' },
    h(
      'button',
      {
        type: 'button',
        class: 'button small',
        disabled: !can || at === 0,
        onClick: () => showVersion(turn.id, at - 1),
        'aria-label': 'Previous version of the answer',
      },
      '‹',
    ),
    h('span', { class: 'versions-at', 'data-testid': 'version' }, `${at + 1}/${total}`),
    h(
      'button',
      {
        type: 'button',
        class: 'button small',
        disabled: !can || at === total - 1,
        onClick: () => showVersion(turn.id, at + 1),
        'aria-label': 'Next version of the answer',
      },
      '›',
    ),
  );
}

export function TurnView(props: TurnProps) {
  if (props.turn.role === 'note') return h('li', { class: 'turn note', role: 'note' }, props.turn.text);
  if (props.turn.role === 'tool') return h(ToolResult, props);
  return props.turn.role === 'user' ? h(UserTurn, props) : h(AssistantTurn, props);
}
