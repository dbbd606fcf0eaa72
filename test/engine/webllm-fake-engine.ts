// The test build's web-llm engine (the knob `webllmFake`, test/engine/knobs.ts): the real adapter
// (worker/engine/webllm/adapter.ts: request translation, Qwen3's tool format, the structural tag that holds a forced
// call, streaming, the tool-call parser) over the typed fake of web-llm the unit tests use (test/unit/webllm-fake.ts),
// in the engine worker of a browser. Its model says, in Qwen3's format:
//   a request whose last turn holds a `<tool_response>`  → "Tool said: <the response>"
//   a request that must call a tool (the forced structural tag: `tool_choice` naming one, or `required`)
//                                                         → a call of the first tool it may call, with `{}`
//   anything else                                         → "Echo: <the last message>"
import type { ChatCompletionRequest } from '@mlc-ai/web-llm';
import type { InpageConfig } from '#shared/config';
import type { ModelCatalog } from '#shared/model-config';
import type { Engine } from '../../worker/engine/engine';
import { WebLlmEngine } from '../../worker/engine/webllm/adapter';
import { renderCall } from '../../worker/engine/webllm/tool-formats/qwen3';
import { rig, type FakeEngine } from '../unit/webllm-fake';

/** The model writing `text`, a few characters per token. */
const pieces = (text: string) => text.match(/[\s\S]{1,3}/g) ?? [];

function reply(request: ChatCompletionRequest): string {
  const last = request.messages.at(-1);
  const text = typeof last?.content === 'string' ? last.content : '';
  const result = /<tool_response>\n([\s\S]*?)\n<\/tool_response>/.exec(text);
  if (result) return `Tool said: ${result[1]}`;
  const format = (request.response_format as { structural_tag?: { format?: { type?: string; tags?: { begin: string }[] } } } | undefined)?.structural_tag
    ?.format;
  const forced = format?.type === 'tags_with_separator' ? /"name": "([^"]+)"/.exec(format.tags?.[0]?.begin ?? '') : null;
  if (forced) return renderCall(forced[1]!, '{}');
  return `Echo: ${text}`;
}

export function webllmFakeEngine(config: InpageConfig, catalog?: ModelCatalog): Engine {
  const r = rig();
  const create = r.deps.createEngine;
  r.deps.createEngine = (engineConfig) => {
    const engine = create(engineConfig) as FakeEngine;
    engine.script = (request) => ({ pieces: pieces(reply(request)) });
    return engine;
  };
  return new WebLlmEngine(config, { ...r.deps, origin: self.location.origin }, catalog);
}
