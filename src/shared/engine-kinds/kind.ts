// What shared code knows of one engine kind, declared once per kind in src/shared/engine-kinds/<kind>.ts and listed
// in specs.ts: its name in messages, its `models` entries, the cards of the models it runs by default and how the
// workspace says where it runs. The engine worker's side of a kind is its descriptor (worker/engine/<kind>/); its
// own files are in src/shared/engine-files.ts, which the build reads in Node without the kinds' schemas.
import type { CommonEntry, EntryKind } from '../model-entry';
import type { ModelRuntime } from '../wire/engine-port';

export interface EngineKindSpec<Entry extends CommonEntry = CommonEntry> {
  /** Its name in messages: "llama.cpp". */
  label: string;
  /** Its `models` entries. */
  entry: EntryKind<Entry>;
  /**
   * What a person choosing a model wants to know about the real model behind this engine's model ids, by the id
   * the engine names in each model's status (`modelId`); an id of the deployment's own has none.
   */
  cards: Readonly<Record<string, ModelCard>>;
  /** Where it runs a model, in words (the Models area): "llama.cpp on the CPU, 2 threads (cross-origin isolated)". */
  runtimeText(runtime: ModelRuntime): string;
}

/** A model's family, size, quantisation and licence (the workspace shows it as the model's card). */
export interface ModelCard {
  family: string;
  /** Parameters, as the model's makers state them. */
  size: string;
  quantisation: string;
  licence: string;
  licenceUrl: string;
}

export const QWEN3_LICENCE = { licence: 'Apache-2.0', licenceUrl: 'https://www.apache.org/licenses/LICENSE-2.0' };
