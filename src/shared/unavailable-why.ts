// Why a model is `unavailable` here, said once for /v1/models (its `why`) and the Models area's card: every
// unavailable model says why (the engine's own reason, the hybrid or model-provider note, or why no engine
// reported it at all).
import type { ModelStatus } from './wire/engine-port';

/** Said of a model the connected engine did not list (it reported its models, without this one). */
export const NOT_REPORTED = 'The inference engine running here did not report this model.';

/** Said where no engine's status could be had and the link gave no reason (never expected: the link says why). */
export const NO_STATUS = 'No inference engine has reported its models yet.';

/**
 * Why the model is unavailable: its status's error, else the hybrid or model-provider note, else `fallback` (why
 * there is no status). Null when the model is not unavailable.
 */
export function unavailableWhy(status: ModelStatus | undefined, fallback: string): string | null {
  if (status && status.state !== 'unavailable') return null;
  return status?.error || status?.serving?.why || (status?.provider && !status.provider.serving ? status.provider.why : '') || fallback;
}
