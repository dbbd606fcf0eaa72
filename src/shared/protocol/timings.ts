// An engine's own measure of one generation, in llama.cpp's server's shape (`timings` in its answers).

/** llama.cpp's names of its own measures, in the order llama.cpp writes them. */
export const TIMING_FIELDS = [
  'prompt_n',
  'prompt_ms',
  'prompt_per_token_ms',
  'prompt_per_second',
  'predicted_n',
  'predicted_ms',
  'predicted_per_token_ms',
  'predicted_per_second',
] as const;

/**
 * The engine's own measure of one generation, as llama.cpp's server reports it (`timings`): prompt tokens
 * it evaluated (not those found in its KV cache) and the time that took, tokens it generated and the time
 * that took, with the per-token and per-second figures derived from them. Sent by engines that measure it; a
 * figure the engine could not compute (a rate over no time) is left out.
 */
export type Timings = Partial<Record<(typeof TIMING_FIELDS)[number], number>>;

/** The known figures of an engine's timings object that are finite numbers; null when there are none. */
export function timingsOf(raw: unknown): Timings | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const out: Timings = {};
  let any = false;
  for (const field of TIMING_FIELDS) {
    const value = (raw as Record<string, unknown>)[field];
    if (typeof value === 'number' && Number.isFinite(value)) {
      out[field] = value;
      any = true;
    }
  }
  return any ? out : null;
}
