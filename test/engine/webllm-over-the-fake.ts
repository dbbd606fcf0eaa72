// The web-llm engine itself (worker/engine/webllm/adapter.ts: request translation, the tool formats' prompts,
// history and grammars, the structural tag that holds a forced call, streaming, the tool-call parsers) over the typed
// fake of web-llm the unit tests use (test/unit/fakes/webllm-fake.ts), inside the test build's engine worker. One place rigs
// it (`overTheFake`); two scripts say what its model writes:
// - `webllmFakeEngine`, this device's whole engine under the knob `webllmFake` (test/engine/knobs.ts): its model
//   answers in Qwen3's format (`echoOrCall`);
// - `WebLlmOverTheFake`, used by the deterministic engine for a deployment's model whose tool format is not Qwen3's
//   (Llama 3.x, Mistral, Phi-4-mini): its model writes the deterministic engine's calls in that format, so /v1 sees
//   what production's web-llm path makes of such a model's answer.
import type { ChatCompletionRequest } from '@mlc-ai/web-llm';
import type { InpageConfig } from '#shared/config';
import type { ModelCatalog } from '#shared/model-config';
import type { WebLlmToolFormatName } from '#shared/engine-kinds/webllm';
import type { Engine, Generation } from '../../worker/engine/engine';
import type { PlannedRequest } from '../../worker/engine/common/plan';
import { WebLlmEngine } from '../../worker/engine/webllm/adapter';
import { renderCall } from '../../worker/engine/webllm/tool-formats/qwen3';
import { TOOL_FORMATS } from '../../worker/engine/webllm/tool-formats/registry';
import { rig, type FakeEngine } from '../unit/fakes/webllm-fake';

/** The model writing `text`, a few characters per token. */
const pieces = (text: string) => text.match(/[\s\S]{1,3}/g) ?? [];

/**
 * The web-llm engine over the fake, its model writing what `writes` says for each request web-llm is given.
 * `origin`: the page's origin, against which relative model URLs resolve (left out: the fake's `https://app.example`).
 */
function overTheFake(
  config: InpageConfig,
  catalog: ModelCatalog | undefined,
  writes: (request: ChatCompletionRequest) => string,
  origin?: string,
): WebLlmEngine {
  const r = rig();
  const create = r.deps.createEngine;
  r.deps.createEngine = (engineConfig) => {
    const engine = create(engineConfig) as FakeEngine;
    engine.script = (request) => ({ pieces: pieces(writes(request)) });
    return engine;
  };
  return new WebLlmEngine(config, origin === undefined ? r.deps : { ...r.deps, origin }, catalog);
}

/**
 * The knob's model, in Qwen3's format:
 *   a request whose last turn holds a `<tool_response>`  → "Tool said: <the response>"
 *   a request that must call a tool (the forced structural tag: `tool_choice` naming one, or `required`)
 *                                                         → a call of the first tool it may call, with `{}`
 *   anything else                                         → "Echo: <the last message>"
 */
function echoOrCall(request: ChatCompletionRequest): string {
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

/** This device's engine under the knob `webllmFake`: web-llm's side in a browser without a GPU or weights. */
export function webllmFakeEngine(config: InpageConfig, catalog?: ModelCatalog): Engine {
  return overTheFake(config, catalog, echoOrCall, self.location.origin);
}

/** The formats answered over the fake (Qwen3's is the deterministic engine's own, as ever). */
export const OVER_THE_FAKE: ReadonlySet<WebLlmToolFormatName> = new Set(['llama3', 'mistral', 'phi4-mini']);

/** The deterministic engine's answers in another tool format, written by the fake model and read by web-llm's side. */
export class WebLlmOverTheFake {
  private engine: WebLlmEngine | null = null;
  /** What the fake model writes for the next request. */
  private answer = '';

  constructor(
    private readonly config: InpageConfig,
    private readonly catalog: ModelCatalog,
  ) {}

  /** What web-llm refuses of the request (its `supports`), asked once before `generate`, as the scheduler asks. */
  supports(request: PlannedRequest): void {
    this.web().supports(request);
  }

  private web(): WebLlmEngine {
    this.engine ??= overTheFake(this.config, this.catalog, () => this.answer);
    return this.engine;
  }

  /**
   * The request answered by the web-llm engine, its model writing `calls` in `format` (as the model writes them:
   * Mistral's history ids left out), or `text` when there are none; a few characters per token.
   */
  generate(
    request: PlannedRequest,
    signal: AbortSignal,
    format: WebLlmToolFormatName,
    calls: readonly { name: string; arguments: string }[],
    text: string,
  ): Promise<Generation> {
    const written = TOOL_FORMATS[format]!.assistantText(
      '',
      calls.map((c, i) => ({ id: `call_${i}`, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })),
    ).replace(/, "id": "\w{9}"/g, '');
    this.answer = calls.length > 0 ? written : text;
    return this.web().generate(request, signal);
  }
}
