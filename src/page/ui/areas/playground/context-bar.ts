// Beside the composer: how much of this device's context the chat takes (from the answers' `usage`), and, when the
// next message would not fit, the person's choice: leave out the oldest turns, or continue in a new chat with a
// summary. Nothing is cut without that choice (context-budget.ts does the counting).
import { h } from 'preact';
import { useState } from 'preact/hooks';
import { variantOf } from '#shared/catalog';
import type { ModelStatus } from '#shared/wire/engine-port';
import { streamChat } from '../../kit/api';
import { continueInNewChat, leaveOutOldest, updateCurrent, type Conversation, type Sender } from './state/chat';
import { IMAGE_TOKENS, MIN_ANSWER_TOKENS, SUMMARY_MAX_TOKENS, contextUsed, draftDocumentTokens, nextFit, sentFrom, turnsToDrop } from './state/context-budget';
import { toMessages } from './state/conversation-request';
import { formatInteger } from '../../kit/format';
import { errorText } from '../../kit/widgets';
import { focusComposer } from './focus';

/** What the model is asked for the summary a new chat starts from. */
const SUMMARY_PROMPT =
  'Summarise our conversation so far in one short paragraph: the facts, names, numbers and decisions someone continuing it needs. Write only the summary.';

/** Asks the model for a summary of the chat (the oldest turns left out as far as needed for the summary to fit). */
async function summarise(conversation: Conversation, key: string, context: number): Promise<string> {
  const params = { ...conversation.params, max_tokens: SUMMARY_MAX_TOKENS };
  const drop = turnsToDrop({ system: conversation.system, turns: conversation.turns, params }, SUMMARY_PROMPT, context) ?? 0;
  const turns = conversation.turns.slice(sentFrom(conversation.turns) + drop);
  const { messages } = toMessages(conversation.system, turns, conversation.model);
  messages.push({ role: 'user', content: SUMMARY_PROMPT });
  const body: Record<string, unknown> = { model: conversation.model, messages, max_tokens: SUMMARY_MAX_TOKENS };
  if (variantOf(conversation.model)?.thinks) body.reasoning_effort = 'none';
  let text = '';
  for await (const chunk of streamChat(key, body, new AbortController().signal)) text += chunk.choices[0]?.delta.content ?? '';
  if (!text.trim()) throw new Error('The model wrote no summary.');
  return text;
}

/** The chat's own Max tokens is what does not fit: said, with the way to lower it (or to send none). */
function MaxTokensNotice(props: { conversation: Conversation; context: number; needed: number; room: number }) {
  const { conversation, context } = props;
  // What Max tokens can be lowered to: the room there is, in whole hundreds when that leaves an answer room enough.
  const lowered = props.room >= 2 * MIN_ANSWER_TOKENS ? Math.floor(props.room / 100) * 100 : props.room;
  return h(
    'div',
    { class: 'notice notice-warn context-full', role: 'status', 'data-testid': 'context-full' },
    h(
      'p',
      null,
      h('strong', null, 'Max tokens is too high for this chat. '),
      `Max tokens (in Settings) asks for answers of up to ${formatInteger(conversation.params.max_tokens!)} tokens, but the chat and your message take about ${formatInteger(props.needed)} of the ${formatInteger(context)} tokens ${conversation.model} has on this device, leaving room for about ${formatInteger(props.room)}. Nothing is sent until you lower it:`,
    ),
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        {
          type: 'button',
          class: 'button small',
          onClick: () => {
            updateCurrent({ params: { ...conversation.params, max_tokens: lowered } });
            focusComposer();
          },
        },
        `Lower Max tokens to ${formatInteger(lowered)}`,
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'button small',
          onClick: () => {
            updateCurrent({ params: { ...conversation.params, max_tokens: null } });
            focusComposer();
          },
        },
        'Use the room that is left (no Max tokens)',
      ),
    ),
  );
}

/** The attached image is what does not fit (the message would without it): said, with Remove the image. */
function ImageNotice(props: { conversation: Conversation; context: number; needed: number }) {
  const { conversation, context } = props;
  return h(
    'div',
    { class: 'notice notice-warn context-full', role: 'status', 'data-testid': 'context-full' },
    h(
      'p',
      null,
      h('strong', null, 'The attached image would not fit. '),
      `An image takes about ${formatInteger(IMAGE_TOKENS)} tokens: with it, the chat and your message take about ${formatInteger(props.needed)} of the ${formatInteger(context)} tokens ${conversation.model} has on this device, leaving too little room for an answer. Nothing is sent until you remove it (or make room):`,
    ),
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        {
          type: 'button',
          class: 'button small',
          onClick: () => {
            updateCurrent({ draftImage: null });
            focusComposer();
          },
        },
        'Remove the image',
      ),
    ),
  );
}

/** The attached documents are what does not fit (the message would without them): said, with Remove the documents. */
function DocumentsNotice(props: { conversation: Conversation; context: number; needed: number }) {
  const { conversation, context } = props;
  const docs = conversation.draftDocuments ?? [];
  const one = docs.length === 1;
  return h(
    'div',
    { class: 'notice notice-warn context-full', role: 'status', 'data-testid': 'context-full' },
    h(
      'p',
      null,
      h('strong', null, one ? `The attached document ${docs[0]!.name} would not fit. ` : `The ${docs.length} attached documents would not fit. `),
      `${one ? 'It takes' : 'They take'} about ${formatInteger(draftDocumentTokens(conversation))} tokens: with ${one ? 'it' : 'them'}, the chat and your message take about ${formatInteger(props.needed)} of the ${formatInteger(context)} tokens ${conversation.model} has on this device, leaving too little room for an answer. Nothing is sent or cut until you remove ${one ? 'it' : 'some'} (or attach a shorter part):`,
    ),
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        {
          type: 'button',
          class: 'button small',
          onClick: () => {
            updateCurrent({ draftDocuments: [] });
            focusComposer();
          },
        },
        one ? 'Remove the document' : 'Remove the documents',
      ),
    ),
  );
}

export function ContextBar(props: { conversation: Conversation; status: ModelStatus | undefined; sender: Sender | null; busy: boolean }) {
  const { conversation, status } = props;
  const [summarising, setSummarising] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const context = status?.context_length;
  if (!context) return null;
  const used = contextUsed(conversation);
  const withImage = Boolean(conversation.draftImage && variantOf(conversation.model)?.vision);
  const fit = nextFit(conversation, conversation.draft.trim(), context, withImage);
  // The attached image is the cause: without it the message would fit.
  const imageTooBig = withImage && !fit.fits && !fit.maxTokensTooHigh && nextFit(conversation, conversation.draft.trim(), context).fits;
  // The draft's documents are the cause: without them the message would fit.
  const docTokens = draftDocumentTokens(conversation);
  const documentsTooBig =
    docTokens > 0 &&
    !fit.fits &&
    !fit.maxTokensTooHigh &&
    !imageTooBig &&
    nextFit({ ...conversation, draftDocuments: [] }, conversation.draft.trim(), context, withImage).fits;
  const full = !fit.fits && !props.busy && (conversation.turns.length > 0 || conversation.draft.trim() !== '' || docTokens > 0);
  const drop = full && !fit.maxTokensTooHigh ? turnsToDrop(conversation, conversation.draft.trim(), context) : null;
  const percent = Math.min(100, Math.round((used.tokens / context) * 100));
  const summary = async () => {
    if (!props.sender) return;
    setSummarising(true);
    setError(null);
    try {
      continueInNewChat(await summarise(conversation, props.sender.key, context));
      focusComposer();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setSummarising(false);
    }
  };
  return h(
    'div',
    { class: 'context-bar' },
    full && fit.maxTokensTooHigh && h(MaxTokensNotice, { conversation, context, needed: fit.needed, room: fit.room }),
    full && imageTooBig && h(ImageNotice, { conversation, context, needed: fit.needed }),
    full && documentsTooBig && h(DocumentsNotice, { conversation, context, needed: fit.needed }),
    full &&
      !fit.maxTokensTooHigh &&
      !imageTooBig &&
      !documentsTooBig &&
      h(
        'div',
        { class: 'notice notice-warn context-full', role: 'status', 'data-testid': 'context-full' },
        h(
          'p',
          null,
          h('strong', null, 'This message would not fit. '),
          `The chat and your message take about ${formatInteger(fit.needed)} of the ${formatInteger(context)} tokens ${conversation.model} has on this device, leaving too little room for an answer. Nothing is sent or left out until you choose:`,
        ),
        h(
          'div',
          { class: 'actions' },
          drop !== null &&
            h(
              'button',
              {
                type: 'button',
                class: 'button small',
                disabled: summarising,
                onClick: () => {
                  leaveOutOldest(drop);
                  focusComposer();
                },
              },
              `Leave out the oldest ${drop === 1 ? 'turn' : `${drop} turns`}`,
            ),
          h(
            'button',
            { type: 'button', class: 'button small', disabled: summarising || !props.sender, onClick: () => void summary() },
            summarising ? 'Summarising…' : 'Continue in a new chat with a summary',
          ),
        ),
        drop === null && h('p', { class: 'hint' }, 'Your message alone is too long for this context: shorten it, or start a new chat with the summary.'),
        error && h('p', { class: 'plain', role: 'alert' }, `The summary failed: ${error}`),
      ),
    h(
      'p',
      {
        class: 'context-meter',
        'data-testid': 'context-meter',
        title: used.exact ? 'Counted by the model (usage of the last answer)' : 'Partly estimated: the newest text is not counted by the model yet',
      },
      h('meter', { min: 0, max: context, value: Math.min(used.tokens, context), high: context * 0.8, optimum: 0, 'aria-label': 'Context used' }),
      ` ${used.exact ? '' : '≈'}${formatInteger(used.tokens)} / ${formatInteger(context)} tokens of context (${percent}%)`,
      docTokens > 0 && h('span', { 'data-testid': 'context-documents' }, ` · the attached documents ≈${formatInteger(docTokens)} more when sent`),
    ),
  );
}
