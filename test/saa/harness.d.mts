// Types of harness.mjs for the TypeScript tests that reuse it (test/shared).
import type { Browser, CDPSession, Frame } from 'puppeteer-core';

export const WAIT_MS: number;
export function launch(
  preferences?: object,
  extraArgs?: string[],
): Promise<{ browser: Browser; cdp: CDPSession; storedExceptions(): Promise<Record<string, unknown>>; close(): Promise<void> }>;
export function storageAccessGrants(embedded: string, granted: string[], refused?: string[]): object;
export function evaluateWithoutGesture(frame: Frame, expression: string): Promise<unknown>;
