// The workspace's words for this device, declared once (src/page/ui/kit/model-facts.ts, kit/plain-error.ts, areas/connect/snippets.ts):
// an error's cause from the status its host answered before the words of a failed fetch; the chat model the
// snippets and the Playground use is one this device answers; one label of how a model thinks.
import { describe, expect, it } from 'vitest';
import { httpStatusIn, plainLoadError } from '../../../src/page/ui/kit/plain-error';
import { snippetModels } from '../../../src/page/ui/areas/connect/snippets';
import { capabilityLabel, chooseChatModel, thinkingHere } from '../../../src/page/ui/kit/model-facts';
import type { ModelStatus } from '#shared/wire/engine-port';
import { roomFrom } from '../../../src/page/ui/areas/playground/state/context-budget';

const url = 'http://127.0.0.1:7000/gguf/Qwen/Qwen3-VL-2B-Thinking-GGUF/resolve/main/Qwen3VL-2B-Thinking-Q4_K_M.gguf';

describe('plainLoadError: the status first', () => {
  it('a 404 after "Failed to fetch" names the missing file and its address, not the network', () => {
    const message = `Loading svc-vision (GGUF Qwen3VL-2B-Thinking-Q4_K_M.gguf) failed: Failed to fetch ${url}: HTTP 404`;
    expect(plainLoadError(message, true)).toBe(
      `The model file Qwen3VL-2B-Thinking-Q4_K_M.gguf is missing at ${url}: 127.0.0.1:7000 answered 404 (not found). Check the deployment's model URLs, or import the file from a folder.`,
    );
  });
  it('401 and 403 are refusals, 5xx the host failing, 429 a limit', () => {
    expect(plainLoadError(`Failed to fetch ${url}: HTTP 403`, true)).toMatch(/^127\.0\.0\.1:7000 refused the model files \(403, access denied\)/);
    expect(plainLoadError(`Failed to fetch ${url}: HTTP 401`, true)).toMatch(/^127\.0\.0\.1:7000 refused the model files \(401, it asks to sign in\)/);
    expect(plainLoadError(`Failed to fetch ${url}: HTTP 503`, true)).toBe(
      '127.0.0.1:7000 failed while sending the model files (503, a server error): try again later.',
    );
    expect(plainLoadError(`Failed to fetch ${url}: HTTP 429`, true)).toMatch(/\(429, too many requests\)/);
  });
  it('no status: the network, online or not', () => {
    expect(plainLoadError(`Loading x failed: TypeError: Failed to fetch ${url}`, true)).toBe(
      'Could not reach 127.0.0.1:7000: the connection failed (the host is down, blocked, or this device is offline).',
    );
    expect(plainLoadError(`Loading x failed: TypeError: Failed to fetch ${url}`, false)).toBe(
      'Could not reach 127.0.0.1:7000: this device seems to be offline.',
    );
  });
  it('reads the ways engines write a status, and no number that is not one', () => {
    expect(httpStatusIn('answered 404')).toBe(404);
    expect(httpStatusIn('status: 500')).toBe(500);
    expect(httpStatusIn('GET x 403 Forbidden')).toBe(403);
    expect(httpStatusIn('Qwen3-4B 404 tokens')).toBeNull();
    expect(httpStatusIn(`Failed to fetch ${url}`)).toBeNull();
  });
});

const status = (id: string, state: ModelStatus['state'], extra: Partial<ModelStatus> = {}): ModelStatus => ({
  id: id as ModelStatus['id'],
  state,
  context_length: 4096,
  ...extra,
});
/** A CPU device where Qwen3-8B's variants do not fit. */
const cpuDevice: ModelStatus[] = [
  status('svc-model-5.2', 'unavailable'),
  status('svc-model-5.2-fast', 'unavailable'),
  status('svc-model-5.2-short', 'not_downloaded'),
  status('svc-model-5.2-short-fast', 'not_downloaded'),
  status('svc-vision', 'not_downloaded', { thinks: true }),
  status('svc-embed', 'not_downloaded'),
];

describe('one chat model for the Playground and Connect', () => {
  it('is svc-model-5.2-fast where it runs', () => {
    expect(chooseChatModel(null)).toBe('svc-model-5.2-fast');
    expect(snippetModels()).toEqual({ chat: 'svc-model-5.2-fast', embed: 'svc-embed', chatRuns: true });
  });
  it('on a device that cannot run it, the first that runs and answers directly, for the snippets too', () => {
    expect(chooseChatModel(cpuDevice)).toBe('svc-model-5.2-short-fast');
    expect(snippetModels(undefined, cpuDevice)).toEqual({ chat: 'svc-model-5.2-short-fast', embed: 'svc-embed', chatRuns: true });
  });
  it('an upstream that answers a model this device cannot run makes it answerable', () => {
    const hybrid = cpuDevice.map((m) =>
      m.id === 'svc-model-5.2-fast' ? { ...m, serving: { engine: 'upstream' as const, mode: 'prefer-local' as const, why: 'x' } } : m,
    );
    expect(snippetModels(undefined, hybrid as ModelStatus[]).chat).toBe('svc-model-5.2-fast');
  });
  it('a key that reaches only models that cannot run here: named, and said not to run', () => {
    expect(snippetModels(['svc-model-5.2', 'svc-embed'], cpuDevice)).toEqual({ chat: 'svc-model-5.2', embed: 'svc-embed', chatRuns: false });
    expect(snippetModels(['svc-embed'], cpuDevice)).toEqual({ chat: null, embed: 'svc-embed', chatRuns: false });
  });
});

describe('one label of how a model thinks here', () => {
  it('svc-vision on llama.cpp always thinks, in every area', () => {
    const vision = cpuDevice.find((m) => m.id === 'svc-vision');
    expect(thinkingHere('svc-vision', vision)).toBe('always');
    expect(capabilityLabel('svc-vision', vision)).toBe('always thinks, vision');
    expect(capabilityLabel('svc-vision', undefined)).toBe('answers directly, vision');
    expect(capabilityLabel('svc-model-5.2', undefined)).toBe('thinks first');
    expect(capabilityLabel('svc-embed', undefined)).toBe('embeddings');
  });
});

import { MIN_ANSWER_TOKENS, contextUsed, nextFit, sentFrom, turnsToDrop } from '../../../src/page/ui/areas/playground/state/context-budget';
import { DEFAULT_PARAMS, type Conversation, type Turn } from '../../../src/page/ui/areas/playground/state/conversation-db';
import { exportJson, paramsProblem, toMessages } from '../../../src/page/ui/areas/playground/state/conversation-request';
import { parseExport } from '../../../src/page/ui/areas/playground/state/chat-import';
import { extractMaths } from '../../../src/page/ui/kit/maths-source';

const turn = (role: Turn['role'], text: string, extra: Partial<Turn> = {}): Turn => ({ id: `t${Math.random()}`, role, text, ...extra });
const answered = (text: string, tokens: number, promptTokens: number, cut: string | null = null): Turn =>
  turn('assistant', text, {
    status: 'done',
    stats: { tokens, reasoningTokens: null, exact: true, tokensPerSecond: null, firstTokenMs: null, finish: 'stop', promptTokens, cut },
  });

describe('the context budget', () => {
  const chat = { system: '', params: { ...DEFAULT_PARAMS }, turns: [turn('user', 'count 1500'), answered('1 2 3', 1500, 10)] };
  it('counts from the last answer’s usage, exactly, and estimates what came after it', () => {
    expect(contextUsed(chat)).toEqual({ tokens: 1510, exact: true });
    const more = { ...chat, turns: [...chat.turns, turn('user', 'abcdef')] };
    expect(contextUsed(more)).toEqual({ tokens: 1510 + 2 + 8, exact: false });
  });
  it('gives the answer the room that is left, and says when a message leaves too little', () => {
    // max_tokens: the room after the most the prompt can take (2 bytes and a message's 8 for 'hi', 32 for the template).
    expect(nextFit(chat, 'hi', 4096)).toEqual({ needed: 1510 + 9, room: 4096 - 1519, fits: true, maxTokens: 4096 - 1510 - 10 - 32, maxTokensTooHigh: false });
    expect(nextFit(chat, 'hi', 1519 + MIN_ANSWER_TOKENS - 1).fits).toBe(false);
    // The chat's own max_tokens is the room it needs; it alone is the cause while the room has MIN_ANSWER_TOKENS.
    const own = nextFit({ ...chat, params: { ...DEFAULT_PARAMS, max_tokens: 3000 } }, 'hi', 4096);
    expect(own).toMatchObject({ fits: false, maxTokensTooHigh: true });
    expect(nextFit({ ...chat, params: { ...DEFAULT_PARAMS, max_tokens: 3000 } }, 'hi', 1519 + 100).maxTokensTooHigh).toBe(false);
  });
  it('never sends a default max_tokens a prompt of many short tokens would overrun', () => {
    // 300 one-letter words: estimated at 3 characters a token (208), at most 600 bytes; a word tokenizer counts 300.
    const text = Array(300).fill('a').join(' ');
    const fresh = { system: '', params: { ...DEFAULT_PARAMS }, turns: [] };
    const fit = nextFit(fresh, text, 4096);
    expect(fit.maxTokens).toBe(4096 - (599 + 8) - 32);
    expect(fit.maxTokens + 300 + 6).toBeLessThanOrEqual(4096);
    // A text too long for the bound: the estimated room, as before (the refusal names the size, and it is asked again).
    expect(nextFit(fresh, 'é'.repeat(2000), 4096).maxTokens).toBe(4096 - Math.ceil(2000 / 3) - 8);
  });
  it('leaves out whole exchanges, oldest first, and never the system prompt; a cut note stops what is sent', () => {
    const long = {
      system: 'Be brief.',
      params: { ...DEFAULT_PARAMS },
      turns: [turn('user', 'a'), answered('x', 3000, 10), turn('user', 'b'), answered('y', 900, 3020)],
    };
    expect(turnsToDrop(long, 'next', 4096)).toBe(2);
    const note = turn('note', 'cut', { cut: true });
    const cut = [...long.turns.slice(0, 2), note, ...long.turns.slice(2)];
    expect(sentFrom(cut)).toBe(3);
    expect(toMessages('Be brief.', cut, 'svc-model-5.2-fast').messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'b' },
      { role: 'assistant', content: 'y' },
    ]);
    // The usage of an answer asked before the cut no longer counts: estimated instead.
    expect(contextUsed({ ...long, turns: cut }).exact).toBe(false);
  });
});

describe('an exported chat imports back the same', () => {
  it('round-trips messages, model, system prompt and parameters', () => {
    const conversation: Conversation = {
      id: 'c',
      orgId: 'o',
      title: 'Trip',
      named: true,
      createdAt: 0,
      updatedAt: 0,
      model: 'svc-model-5.2',
      system: 'Be brief.',
      draft: '',
      imagesNoted: false,
      params: { ...DEFAULT_PARAMS, temperature: 0.3, max_tokens: 99, thinking: false, stop: 'END\nSTOP', schema: '{"type":"object"}' },
      turns: [
        turn('user', 'hi'),
        answered('hello', 2, 5),
        turn('user', 'call it'),
        turn('assistant', '', { toolCalls: [{ id: 'call_1', name: 'f', arguments: '{}' }] }),
        turn('tool', '42', { toolCallId: 'call_1', name: 'f' }),
      ],
    };
    const text = exportJson(conversation);
    const parsed = parseExport(text, 'svc-model-5.2-fast');
    if (typeof parsed === 'string') throw new Error(parsed);
    expect(parsed).toMatchObject({ title: 'Trip', model: 'svc-model-5.2', system: 'Be brief.' });
    const back: Conversation = { ...conversation, ...parsed, turns: parsed.turns.map((t, i) => ({ ...t, id: `n${i}` })) };
    expect(JSON.parse(exportJson(back))).toEqual(JSON.parse(text));
  });
  it('carries every version and branch in a chat that has them, and takes them back', () => {
    const later = [answered('second', 1, 3), turn('user', 'more'), answered('more', 1, 6)];
    const conversation: Conversation = {
      id: 'c',
      orgId: 'o',
      title: 'Branches',
      named: true,
      createdAt: 0,
      updatedAt: 0,
      model: 'svc-model-5.2',
      system: '',
      draft: '',
      imagesNoted: false,
      params: { ...DEFAULT_PARAMS },
      turns: [
        turn('user', 'first', {
          branches: [
            { text: 'first', after: [] },
            { text: 'second', after: later },
          ],
          branch: 0,
        }),
        answered('one', 1, 3),
      ],
    };
    conversation.turns[1]!.versions = [{ text: 'zero' }, { text: 'one' }];
    conversation.turns[1]!.version = 1;
    const json = JSON.parse(exportJson(conversation));
    expect(json.messages.map((m: { content: string }) => m.content)).toEqual(['first', 'one']);
    expect(JSON.stringify(json.turns)).not.toContain('"id"');
    const parsed = parseExport(exportJson(conversation), 'svc-model-5.2-fast');
    if (typeof parsed === 'string') throw new Error(parsed);
    expect(parsed.turns[0]!.branches![1]!.after.map((t) => t.text)).toEqual(['second', 'more', 'more']);
    expect(parsed.turns[1]!.versions).toHaveLength(2);
    // A chat without versions exports as before: the request alone.
    expect(JSON.parse(exportJson({ ...conversation, turns: [turn('user', 'a')] })).turns).toBeUndefined();
  });
  it('refuses what is not an export, saying why', () => {
    expect(parseExport('nope', 'svc-model-5.2-fast')).toBe('That file is not JSON: choose a chat exported with Export JSON.');
    expect(parseExport('{"messages": [{"role": "robot", "content": "x"}]}', 'svc-model-5.2-fast')).toBe(
      'A message in that file has a role this chat cannot hold: "robot".',
    );
  });
});

describe('the form refuses numbers out of range', () => {
  it('names the parameter and its range', () => {
    expect(paramsProblem({ ...DEFAULT_PARAMS, temperature: 5 })).toBe('Temperature is between 0 and 2 (it is 5): change it in Settings.');
    expect(paramsProblem({ ...DEFAULT_PARAMS, max_tokens: 0 })).toBe('Max tokens is at least 1 (it is 0): change it in Settings.');
    expect(paramsProblem({ ...DEFAULT_PARAMS, temperature: 2, top_p: 0 })).toBeNull();
  });
});

describe('maths is taken out before markdown, never from code', () => {
  it('display and inline, not a price, not inside code', () => {
    const { text, maths } = extractMaths('A $$x_1$$ and \\(a_b\\) for $5 or $6, `$y$` and\n```\n$$z$$\n```');
    expect(maths).toEqual([
      { tex: 'x_1', display: true },
      { tex: 'a_b', display: false },
    ]);
    expect(text).toBe('A MATHPLACEHOLDER0X and MATHPLACEHOLDER1X for $5 or $6, `$y$` and\n```\n$$z$$\n```');
  });
});

describe('roomFrom: the room for an answer after a context_length_exceeded', () => {
  it("takes the prompt's size from the message, within the listed context", () => {
    expect(roomFrom('This request needs 4112 tokens (13 in the messages, 4099 in the completion).', 4096)).toBe(4083);
  });
  it('takes the context the message names where it is smaller than the listed one (an upstream)', () => {
    const upstream =
      "This model's maximum context length is 4096 tokens. However, you requested 32768 tokens (9 in the messages, 32759 in the completion). Please reduce the length of the messages or completion.";
    expect(roomFrom(upstream, 32768)).toBe(4087);
  });
  it('null when the message names no prompt size; undefined when no room is left', () => {
    expect(roomFrom('too long', 4096)).toBeNull();
    expect(roomFrom('(5000 in the messages)', 4096)).toBeUndefined();
  });
});
