// Checked requests for unit tests that hand an engine a request directly: the body with its variant resolved,
// as validateChatRequest leaves it, with the plan the scheduler adds (without the body checks, so a test can hand over what only an engine refuses).
import type { ChatCompletionRequest } from '#shared/protocol/types';
import { withPlan, type PlannedRequest } from '../../../worker/engine/common/plan';
import { VARIANTS, isVariantId } from '#shared/variants';
import type { Engine } from '../../../worker/engine/engine';

export type RequestBody = Omit<ChatCompletionRequest, 'variant'>;

export function resolved(body: RequestBody): PlannedRequest {
  if (!isVariantId(body.model)) throw new Error(`Not one of the six: ${body.model}`);
  return withPlan({ ...body, variant: VARIANTS[body.model] });
}

/** `engine` as the scheduler runs a request on its local side: `supports` asked once, then `generate`. */
export function scheduled(engine: Required<Pick<Engine, 'supports'>> & Pick<Engine, 'generate'>): Pick<Engine, 'generate'> {
  return {
    generate: async (request, signal) => {
      engine.supports(request);
      return engine.generate(request, signal);
    },
  };
}
