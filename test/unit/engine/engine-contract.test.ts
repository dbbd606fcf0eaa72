// One contract, every engine: the deterministic test engine, the web-llm engine over the typed fake of web-llm,
// and the composite device's engine (worker/engine/device-engine.ts) over each, as it picks one per device.
// llama.cpp runs it in Chromium (llamacpp-contract.browser.test.ts). Skips: none (an engine that skips a case
// lists it in its `skip`, with the reason, and the suite names it as skipped).
import type { ChatCompletionRequest as WebLlmRequest } from '@mlc-ai/web-llm';
import { DEFAULT_CONFIG } from '#shared/config';
import { DeterministicEngine } from '../../engine/deterministic-engine';
import { WebLlmEngine } from '../../../worker/engine/webllm/adapter';
import { DeviceEngine } from '../../../worker/engine/device-engine';
import { engineContract } from './engine-contract';
import { fakeTokens, rig, type Script } from '../fakes/webllm-fake';

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

/** web-llm's engine over the fake, its model answering by the rules. */
function webLlmOverTheFake(): WebLlmEngine {
  const r = rig();
  const created = r.deps.createEngine;
  r.deps.createEngine = (config) => {
    const mlc = created(config);
    (mlc as ReturnType<typeof r.engine>).script = byTheRules;
    return mlc;
  };
  return new WebLlmEngine({ ...DEFAULT_CONFIG }, r.deps);
}

engineContract('web-llm engine over the fake', webLlmOverTheFake, { rules: true });

const gpu = { report: { available: true, features: ['shader-f16'], shaderF16: true } };
const noGpu = { report: { available: false, reason: 'no adapter', features: [], shaderF16: false } };

engineContract(
  'composite on a WebGPU device: web-llm (over the fake)',
  () =>
    new DeviceEngine({ ...DEFAULT_CONFIG }, { probe: async () => gpu, create: async (kind) => (kind === 'webllm' ? webLlmOverTheFake() : unexpected(kind)) }),
  { rules: true },
);

engineContract(
  "composite on a device without WebGPU: its CPU engine's place taken by the deterministic engine",
  () =>
    new DeviceEngine(
      { ...DEFAULT_CONFIG },
      { probe: async () => noGpu, create: async (kind) => (kind === 'llamacpp' ? new DeterministicEngine({ ...DEFAULT_CONFIG }) : unexpected(kind)) },
    ),
  { rules: true },
);

function unexpected(kind: string): never {
  throw new Error(`the composite asked for the ${kind} engine, which this device's policy does not pick`);
}
