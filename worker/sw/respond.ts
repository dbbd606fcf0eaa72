// Building /v1 answers: JSON with the contract's content type, and errors in OpenAI's shape.
import { ApiError } from '#shared/protocol/errors';

export const JSON_TYPE = 'application/json; charset=utf-8';

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': JSON_TYPE, ...headers } });
}

export function errorResponse(err: unknown): Response {
  const error = ApiError.from(err);
  const headers: Record<string, string> = {};
  if (error.retryAfter !== undefined) headers['retry-after'] = String(error.retryAfter);
  // An upstream's failure says where it came from (hybrid, docs/hybrid.md), as its answers do.
  if (error.code.startsWith('upstream_')) headers['x-inpage-served-by'] = 'upstream';
  return jsonResponse(error.toBody(), error.status, headers);
}
