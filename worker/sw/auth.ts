// Bearer-key authentication for every /v1 route (docs/contract.md "Authentication").
import { createMiddleware } from 'hono/factory';
import { ApiError } from '#shared/protocol/errors';
import type { KeyRecord } from '#shared/keys/db';
import { displayForm } from '#shared/keys/key-format';
import { listenForKeyChanges, verifyKeyCached } from './key-cache';

listenForKeyChanges(globalThis);

export type AuthEnv = { Variables: { key: KeyRecord; requestId: string } };

export const requireKey = createMiddleware<AuthEnv>(async (c, next) => {
  const header = c.req.header('authorization') ?? '';
  const match = /^Bearer\s+(\S.*)$/i.exec(header.trim());
  if (!match) {
    throw new ApiError(
      'missing_api_key',
      "You didn't provide an API key. Send it in the Authorization header as 'Bearer <key>'; make one in the workspace's API Keys area.",
    );
  }
  const presented = match[1]!.trim();
  const verdict = await verifyKeyCached(presented);
  if (!verdict.ok) {
    const why = verdict.reason === 'revoked' ? 'has been revoked' : 'is not a key of this workspace';
    throw new ApiError('invalid_api_key', `Incorrect API key provided: ${displayForm(presented)} ${why}.`);
  }
  c.set('key', verdict.record);
  await next();
});
