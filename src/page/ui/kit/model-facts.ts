// What the page says about a variant on this device, declared once: whether a chat on it gets answers, the chat
// model a new chat (and Connect's snippets and test) uses, and how the model serving it here thinks, in the words
// every area uses (API Keys, the Models cards, the Playground's picker and settings).
import { modelIds, variantOf } from '#shared/catalog';
import type { ModelStatus } from '#shared/wire/engine-port';
import type { ModelId } from '#shared/variants';

/** The chat model preferred where it runs: it answers at once (no thinking first). */
const PREFERRED_CHAT_MODEL = 'svc-model-5.2-fast';

/** What says whether a variant answers: the engine's status of it, or its entry in GET /v1/models. */
interface Answering {
  id: string;
  state: ModelStatus['state'];
  serving?: { engine: string } | null;
}

/**
 * Whether a chat on this variant gets answers: it runs on this device, or (hybrid) an upstream answers it now. A
 * variant too large for the device whose id an upstream serves is not "cannot run here".
 */
export function answerable(status: Answering | undefined): boolean {
  return status?.state !== 'unavailable' || status.serving?.engine === 'upstream';
}

/**
 * The chat model to use: svc-model-5.2-fast (the deployment's first chat model if it hides that one), unless this
 * device cannot answer it (the engine says `unavailable`: too large for a CPU device, say); then the first this
 * device can answer, one that answers directly (no thinking, no images) first. `allowed`: the models the key in
 * use reaches. With none that runs and is allowed: the first allowed, else the preferred one (the caller says
 * that it cannot run).
 */
export function chooseChatModel(statuses: readonly Answering[] | null, allowed: (id: ModelId) => boolean = () => true): ModelId {
  const chatModels = modelIds().filter((id) => !variantOf(id)?.embeddings);
  const first = chatModels.includes(PREFERRED_CHAT_MODEL) ? PREFERRED_CHAT_MODEL : (chatModels[0] ?? modelIds()[0]!);
  const runs = (id: ModelId) => answerable(statuses?.find((m) => m.id === id));
  const candidates = chatModels.filter((id) => runs(id) && allowed(id));
  if (candidates.includes(first)) return first;
  return candidates.find((id) => !variantOf(id)!.thinks && !variantOf(id)!.vision) ?? candidates[0] ?? chatModels.find(allowed) ?? first;
}

/** How the model serving a variant here thinks: with a switch (the catalog's thinking variants), always, or never. */
type Thinking = 'switchable' | 'always' | 'never';

/**
 * How the model serving a variant on this device thinks: the catalog's word, unless the engine's status says
 * otherwise (svc-vision's llama.cpp default, a Qwen3-VL Thinking model, always thinks and has no switch).
 */
export function thinkingHere(model: ModelId, status: ModelStatus | undefined): Thinking {
  const catalog = variantOf(model)!.thinks;
  if (status?.thinks && !catalog) return 'always';
  if (status?.thinks === false && catalog) return 'never';
  return catalog ? 'switchable' : 'never';
}

/** The short label of each (API Keys' list of models, the Models cards' capability). */
export const THINKING_LABEL: Record<Thinking, string> = {
  switchable: 'thinks first',
  always: 'always thinks',
  never: 'answers directly',
};

/** The short capabilities of a variant here: "thinks first, vision". */
export function capabilityLabel(model: ModelId, status: ModelStatus | undefined): string {
  const v = variantOf(model)!;
  if (v.embeddings) return 'embeddings';
  return [THINKING_LABEL[thinkingHere(model, status)], v.vision ? 'vision' : null].filter(Boolean).join(', ');
}
