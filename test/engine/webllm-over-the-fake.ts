// The web-llm engine itself (worker/engine/webllm/adapter.ts) over the typed fake of web-llm (test/unit/webllm-fake.ts),
// inside the test build: for a deployment's model whose tool format is not Qwen3's (Llama 3.x, Mistral, Phi-4-mini),
// the deterministic engine has the fake model write its answer in that format, and the web-llm engine translates the
// request (the format's prompt, history and grammar) and reads the calls back with the format's parser, so /v1 sees
// what production's web-llm path makes of such a model's answer.
import type { InpageConfig } from '#shared/config';
import type { ModelCatalog } from '#shared/model-config';
import type { WebLlmToolFormatName } from '#shared/engine-kinds/webllm';
import { WebLlmEngine } from '../../worker/engine/webllm/adapter';
import type { Generation } from '../../worker/engine/engine';
import type { PlannedRequest } from '../../worker/engine/common/plan';
import { TOOL_FORMATS } from '../../worker/engine/webllm/tool-formats/registry';
import { rig, type FakeEngine } from '../unit/webllm-fake';

/** The formats answered over the fake (Qwen3's is the deterministic engine's own, as ever). */
export const OVER_THE_FAKE: ReadonlySet<WebLlmToolFormatName> = new Set(['llama3', 'mistral', 'phi4-mini']);

export class WebLlmOverTheFake {
  private engine: WebLlmEngine | null = null;
  /** What the fake model writes for the next request. */
  private answer = '';

  constructor(
    private readonly config: InpageConfig,
    private readonly catalog: ModelCatalog,
  ) {}

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
    this.engine ??= this.create();
    return this.engine.generate(request, signal);
  }

  private create(): WebLlmEngine {
    const r = rig();
    const created = r.deps.createEngine;
    r.deps.createEngine = (config) => {
      const mlc = created(config) as FakeEngine;
      mlc.script = () => ({ pieces: this.answer.match(/[\s\S]{1,3}/g) ?? [] });
      return mlc;
    };
    return new WebLlmEngine(this.config, r.deps, this.catalog);
  }
}
