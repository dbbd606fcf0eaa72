// What a person choosing a model wants to know about the real model behind an engine's model id: family, size,
// quantisation and licence. Each engine kind declares its cards once, in shared code (`cards` of
// src/shared/engine-kinds/<kind>.ts), keyed by the id that engine names in each model's status (`modelId`) for
// the model it runs on this device; the workspace page shows the card. Pure data: the page reads it without any engine.
import { ENGINE_KIND_SPECS } from '#shared/engine-kinds/specs';
import type { ModelCard } from '#shared/engine-kinds/kind';
import type { ModelStatus } from '#shared/wire/engine-port';

/**
 * The card of the model a status names, if inpage has one: by the engine serving it, web-llm where the status
 * does not say (the test build's engine names web-llm's models and no runtime).
 */
export function cardOf(status: Pick<ModelStatus, 'modelId' | 'runtime'> | undefined): ModelCard | undefined {
  return status?.modelId ? ENGINE_KIND_SPECS[status.runtime?.engine ?? 'webllm'].cards[status.modelId] : undefined;
}

/** "Qwen3 8B · 4-bit" */
export function cardTitle(card: ModelCard): string {
  return `${card.family} ${card.size} · ${/^\d+-bit/.exec(card.quantisation)?.[0] ?? card.quantisation}`;
}
