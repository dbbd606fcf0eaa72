// Output that is not valid UTF-8 never breaks a request. A model synthesized to answer a lone continuation byte
// (0x80), then a truncated three-byte sequence (0xE2 0x82, missing its last byte), then "!" runs on the
// production build's llama.cpp engine on the CPU; through /v1 the answer comes back with replacement
// characters, as JSON and as SSE whose bytes are valid UTF-8, with exact usage; the engine keeps serving.
import { expect, test, type Page } from '@playwright/test';
import { synthesizeGguf } from '../../scripts/gguf/synthesize';
import { chat } from './helpers';
import { llamaCppDeployment, ggufPath } from './llamacpp-deployment';

interface Completion {
  choices: { message: { content: string | null }; finish_reason: string }[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}
interface ErrorBody {
  error: { message: string; type: string; code: string | null };
}

const REPLACEMENT = '\uFFFD';
// No WebGPU: the engine chooses llama.cpp by itself.
const deployment = llamaCppDeployment({
  port: 4640,
  prefix: 'utf8',
  files: (put) => put(ggufPath('qwen3-1.7b'), synthesizeGguf({ seed: 7, answerBytes: [0x80, 0xe2, 0x82] }).bytes),
});

/** A request's raw answer: status, and its body decoded strictly (throws on bytes that are not UTF-8). */
function strict(page: Page, key: string, body: unknown): Promise<{ status: number; text: string }> {
  return page.evaluate(
    async ({ key, body }) => {
      const res = await fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, text: new TextDecoder('utf-8', { fatal: true }).decode(await res.arrayBuffer()) };
    },
    { key, body },
  );
}

const ask = (extra: Record<string, unknown> = {}) => ({
  model: 'svc-model-5.2-short-fast',
  messages: [{ role: 'user', content: 'Hello' }],
  temperature: 0,
  max_tokens: 10,
  ...extra,
});

test('llama.cpp: an answer of invalid UTF-8 bytes comes back with replacement characters, JSON and SSE; the engine keeps serving', async () => {
  test.setTimeout(120_000);
  const { page, key } = await deployment.open();

  // 0x80 is one replacement character, 0xE2 0x82 (cut short by "!") another; then "!" and the end of the turn.
  const json = await strict(page, key, ask());
  expect(json.status).toBe(200);
  const answer = JSON.parse(json.text) as Completion;
  expect(answer.choices[0]!.message.content).toBe(`${REPLACEMENT}${REPLACEMENT}!`);
  expect(answer.choices[0]!.finish_reason).toBe('stop');
  // Four tokens of answer (three bytes and "!") and the end-of-turn token.
  expect(answer.usage.completion_tokens).toBe(5);

  // The same as a stream: valid UTF-8 on the wire, the same text, the same usage.
  const sse = await strict(page, key, ask({ stream: true, stream_options: { include_usage: true } }));
  expect(sse.status).toBe(200);
  const events = sse.text
    .split('\n\n')
    .filter(Boolean)
    .map((block) => block.replace(/^data: /, ''));
  expect(events.at(-1)).toBe('[DONE]');
  const chunks = events
    .slice(0, -1)
    .map((e) => JSON.parse(e) as { choices: { delta: { content?: string }; finish_reason: string | null }[]; usage?: Completion['usage'] });
  expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(`${REPLACEMENT}${REPLACEMENT}!`);
  expect(chunks.find((c) => c.choices[0]?.finish_reason)!.choices[0]!.finish_reason).toBe('stop');
  const { prompt_tokens, completion_tokens, total_tokens } = answer.usage;
  expect(chunks.at(-1)!.usage).toMatchObject({ prompt_tokens, completion_tokens, total_tokens });

  // Cut in the middle of the multi-byte sequence (max_tokens 2: 0x80 0xE2): llama.cpp holds back an incomplete
  // sequence at the end, so the answer is the one replacement character for 0x80; both tokens are counted.
  const cut = (await chat(page, key, ask({ max_tokens: 2 }))).json as Completion;
  expect(cut.choices[0]!.message.content).toBe(REPLACEMENT);
  expect(cut.choices[0]!.finish_reason).toBe('length');
  expect(cut.usage.completion_tokens).toBe(2);
  // A stop sequence after the invalid bytes still cuts there.
  const stopped = (await chat(page, key, ask({ stop: ['!'] }))).json as Completion;
  expect(stopped.choices[0]!.message.content).toBe(`${REPLACEMENT}${REPLACEMENT}`);
  expect(stopped.choices[0]!.finish_reason).toBe('stop');

  // Logprobs of such a token: wllama (3.8.1, still 3.13.0) cannot write them out (its JSON refuses the byte). A stream says so
  // in-band; a JSON answer, whose 200 went out before the first token, breaks off as a dropped connection does
  // (the service's rule for late failures); never a hang, and the next request is answered.
  const jsonLogprobs = await page.evaluate(async (key) => {
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const body = JSON.stringify({
      model: 'svc-model-5.2-short-fast',
      messages: [{ role: 'user', content: 'Hello' }],
      temperature: 0,
      max_tokens: 10,
      logprobs: true,
    });
    try {
      const res = await fetch('/v1/chat/completions', { method: 'POST', headers, body });
      return `${res.status} ${await res.text()}`;
    } catch (err) {
      return (err as Error).name;
    }
  }, key);
  expect(jsonLogprobs).toBe('TypeError');
  const streamedLogprobs = await strict(page, key, ask({ logprobs: true, stream: true }));
  expect(streamedLogprobs.status).toBe(200);
  const failed = streamedLogprobs.text
    .split('\n\n')
    .filter(Boolean)
    .map((block) => block.replace(/^data: /, ''));
  expect(failed.at(-1)).toBe('[DONE]');
  const inBand = JSON.parse(failed.at(-2)!) as ErrorBody;
  expect(inBand.error).toMatchObject({ type: 'server_error', code: 'internal_error' });
  expect(inBand.error.message).toContain('not valid UTF-8 on its own');
  const after = (await chat(page, key, ask())).json as Completion;
  expect(after.choices[0]!.message.content).toBe(`${REPLACEMENT}${REPLACEMENT}!`);
  await page.context().close();
});
