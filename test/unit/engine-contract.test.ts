// One contract, two engines: the deterministic test engine, and the web-llm engine over the typed fake of web-llm.
import type { ChatCompletionRequest as WebLlmRequest } from '@mlc-ai/web-llm';
import { DEFAULT_CONFIG } from '../../src/config';
import { DeterministicEngine } from '../engine/deterministic-engine';
import { WebLlmEngine } from '../../worker/engine/webllm/adapter';
import { engineContract } from './engine-contract';
import { fakeTokens, rig, type Script } from './webllm-fake';

/** web-llm's model, answering by the deterministic engine's rules (test/engine/deterministic-engine.ts). */
function byTheRules(request: WebLlmRequest): Script {
  const last = [...request.messages].reverse().find((m) => m.role === 'user');
  const content = last?.content ?? '';
  const text = typeof content === 'string' ? content : content.map((p) => (p.type === 'text' ? p.text : '[image]')).join(' ');
  const n = /^count (\d+)$/.exec(text.trim());
  const answer = n ? Array.from({ length: Number(n[1]) }, (_, i) => String(i + 1)).join(' ') : `Echo: ${text}`;
  // Qwen3 thinks when enable_thinking is true; switched off, the fake prefills the empty block as web-llm does.
  const thinking = request.extra_body?.enable_thinking === true ? `<think>\nThinking about: ${text}\n</think>\n\n` : '';
  return { pieces: fakeTokens(thinking + answer) };
}

engineContract('deterministic engine', () => new DeterministicEngine({ ...DEFAULT_CONFIG }), { rules: true });

engineContract('web-llm engine over the fake', () => {
  const r = rig();
  const created = r.deps.createEngine;
  r.deps.createEngine = (config) => {
    const mlc = created(config);
    (mlc as ReturnType<typeof r.engine>).script = byTheRules;
    return mlc;
  };
  return new WebLlmEngine({ ...DEFAULT_CONFIG }, r.deps);
}, { rules: true });
