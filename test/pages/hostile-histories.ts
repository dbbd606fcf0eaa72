// Hostile chat histories, shared by the test build's in-page hostile run (bench.hostile.ts) and the real
// llama.cpp engine's (test/browser/llamacpp-hostile.prod.spec.ts): messages of every role in any order, with
// contents empty, enormous or not valid UTF-16 (lone surrogates, which no UTF-8 can hold), assistant turns
// replaying calls with broken, non-object or huge arguments and odd ids, tool results answering no call.
import fc from 'fast-check';

export const anyText = fc.string({ unit: 'grapheme', maxLength: 40 });
export const word = fc.stringMatching(/^[a-z]{1,8}$/);

/** Text that is not well-formed UTF-16: lone surrogates (JSON.stringify writes them as \ud800-style escapes). */
const loneSurrogates = fc.tuple(anyText, fc.constantFrom('\ud800', '\udfff', '\udc00x\ud83d', 'a\ud83d'), anyText).map((parts) => parts.join(''));
/** Contents from empty to enormous (kilobytes of one character, or of a phrase). */
const size = fc.constantFrom(0, 1, 5_000, 40_000);
const bulk = fc.tuple(fc.constantFrom('a', ' ', 'Hello! ', '中', '😀'), size).map(([unit, n]) => unit.repeat(Math.ceil(n / unit.length)));
export const hostileText = fc.oneof({ weight: 4, arbitrary: anyText }, fc.constant(''), loneSurrogates, bulk);

/** Arguments as a history may replay them: JSON, JSON cut short, not JSON at all, not an object, huge. */
const argumentsText = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
  fc.constantFrom('{"city": "Os', '', '{', '}', 'null', '"\\ud800"', '{"a": "\\udc00"}', '[1, 2', '{"city": "Oslo"}}', 'not json at all'),
  fc.json({ maxDepth: 2 }).chain((json) => fc.nat({ max: json.length }).map((cut) => json.slice(0, cut))),
  loneSurrogates,
  bulk.map((text) => JSON.stringify({ text })),
);
const toolId = fc.oneof(fc.constantFrom('call_1', '', ' ', 'call_ünï', '\ud800', 'x'.repeat(300)), anyText);
const toolName = fc.oneof({ weight: 3, arbitrary: fc.constantFrom('get_weather', 'count_items') }, word, anyText);
const toolCall = fc.record({ id: toolId, type: fc.constant('function'), function: fc.record({ name: toolName, arguments: argumentsText }) });

const role = fc.constantFrom('system', 'developer', 'user', 'assistant');
const part = fc.oneof(
  fc.record({ type: fc.constant('text'), text: anyText }),
  fc.record({
    type: fc.constant('image_url'),
    image_url: fc.record({ url: fc.constantFrom('data:image/png;base64,iVBORw0KGgo=', 'https://example.invalid/a.png', 'javascript:alert(1)', '') }),
  }),
  fc.record({ type: word, text: anyText }),
);
/** The plain messages the hostile run has always sent: any role, text, parts or null. */
export const message = fc.record(
  { role, content: fc.oneof({ weight: 4, arbitrary: anyText }, fc.array(part, { maxLength: 3 }), fc.constant(null)), name: word },
  { requiredKeys: ['role', 'content'] },
);

/** One turn of a tool-using history: text turns of any role, assistant calls, tool results (maybe for no call). */
const turn = fc.oneof(
  { weight: 3, arbitrary: fc.record({ role, content: hostileText }) },
  fc.record({
    role: fc.constant('assistant'),
    content: fc.oneof(fc.constant(null), hostileText),
    tool_calls: fc.array(toolCall, { minLength: 1, maxLength: 3 }),
  }),
  fc.record({ role: fc.constant('tool'), tool_call_id: toolId, content: hostileText }),
);

/**
 * A history in any order of roles, most often ending with a user or tool turn (what a model answers), and the
 * ids of the calls it made answered by tool results some of the time.
 */
export const hostileHistory = fc
  .tuple(fc.array(turn, { minLength: 0, maxLength: 6 }), fc.oneof({ weight: 4, arbitrary: fc.constantFrom('user', 'tool') }, role), hostileText, fc.boolean())
  .map(([turns, lastRole, lastText, answerCalls]) => {
    const messages: Record<string, unknown>[] = [];
    for (const t of turns) {
      messages.push(t);
      const calls = (t as { tool_calls?: { id: string }[] }).tool_calls;
      if (calls && answerCalls) for (const c of calls) messages.push({ role: 'tool', tool_call_id: c.id, content: '{"ok":true}' });
    }
    messages.push(lastRole === 'tool' ? { role: 'tool', tool_call_id: 'call_1', content: lastText } : { role: lastRole, content: lastText });
    return messages;
  });

/** The tools the hostile histories call (and some they do not know). */
export const hostileTools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'The weather in a city.',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
  { type: 'function', function: { name: 'count_items', parameters: { type: 'object', properties: { n: { type: 'integer' } } } } },
];
