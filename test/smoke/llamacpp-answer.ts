// The smoke sets' one llama.cpp answer (Firefox and WebKit): svc-model-5.2-short asked "Hello" at temperature 0 for
// 12 tokens on the GGUF synthesized with seed 7 (scripts/gguf/synthesize.ts), which thinks "<think> Let me
// think.</think>" first, as in Chromium's llamacpp.prod.spec.ts.
import assert from 'node:assert/strict';

export interface Completion {
  choices: { message: { content: string | null; reasoning_content?: string }; finish_reason: string }[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number; completion_tokens_details: { reasoning_tokens: number } };
  system_fingerprint: string;
}

/** The request: the same model, prompt and sampling in every browser. */
export const GREETING = { model: 'svc-model-5.2-short', messages: [{ role: 'user', content: 'Hello' }], temperature: 0, max_tokens: 12 };

/** Checks the answer whole (llama.cpp's fingerprint, the thinking split off, the length finish, exact usage); returns its choice. */
export function assertGreetingAnswer(json: unknown): Completion['choices'][number] {
  const body = json as Completion;
  assert.match(body.system_fingerprint, /llamacpp/);
  const choice = body.choices[0]!;
  // "<think> Let me think . </think>": 6 tokens of thinking, then 6 of answer, in printable ASCII.
  assert.equal(choice.message.reasoning_content, 'Let me think.');
  assert.match(choice.message.content ?? '', /^[\x20-\x7e]+$/);
  assert.equal(choice.finish_reason, 'length');
  // Prompt tokens by the model's own tokenizer: <|im_start|> user \n Hello <|im_end|> \n <|im_start|> assistant \n.
  assert.deepEqual(
    {
      prompt: body.usage.prompt_tokens,
      completion: body.usage.completion_tokens,
      total: body.usage.total_tokens,
      reasoning: body.usage.completion_tokens_details.reasoning_tokens,
    },
    { prompt: 9, completion: 12, total: 21, reasoning: 6 },
  );
  return choice;
}
