// Checked requests for unit tests that hand an engine a request directly: the body with its variant resolved,
// as validateChatRequest leaves it, with the plan the scheduler adds (without the body checks, so a test can hand over what only an engine refuses).
import type { ChatCompletionRequest } from '#shared/protocol/types';
import { withPlan, type PlannedRequest } from '../../worker/engine/common/plan';
import { VARIANTS, isVariantId } from '#shared/variants';

export type RequestBody = Omit<ChatCompletionRequest, 'variant'>;

export function resolved(body: RequestBody): PlannedRequest {
  if (!isVariantId(body.model)) throw new Error(`Not one of the six: ${body.model}`);
  return withPlan({ ...body, variant: VARIANTS[body.model] });
}
