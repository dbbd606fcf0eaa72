// Checked requests for unit tests that hand an engine a request directly: the body with its variant resolved,
// as validateChatRequest leaves it (without the body checks, so a test can hand over what only an engine refuses).
import type { ChatCompletionRequest } from '../../src/protocol/types';
import { VARIANTS, isVariantId } from '../../src/variants';

export type RequestBody = Omit<ChatCompletionRequest, 'variant'>;

export function resolved(body: RequestBody): ChatCompletionRequest {
  if (!isVariantId(body.model)) throw new Error(`Not one of the five: ${body.model}`);
  return { ...body, variant: VARIANTS[body.model] };
}
