// Issue 51: the update test's probe summed its answers' usage with `loops.reported += (await res.json())…`, which
// reads the sum before the await and writes it back after, so with concurrent loops it lost tokens and the service
// worker looked as if it booked too many ("booked 12,976 > reported 8,574"). eslint.config.js refuses a compound
// assignment that awaits in the tests that compare such a sum with the tokens booked; this lints snippets as if they
// were files there, with the project's configuration, and the probe itself.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(new URL(import.meta.url).pathname), '../../..');
const eslint = new ESLint({ cwd: root, overrideConfig: { rules: { 'import-x/no-cycle': 'off' } } });

/** The no-restricted-syntax errors for `code` as the file `path` (relative to the root), by line. */
async function awaitedTallies(path: string, code: string): Promise<number[]> {
  const [result] = await eslint.lintText(code, { filePath: resolve(root, path) });
  const messages = result?.messages ?? [];
  expect(messages.filter((m) => m.fatal)).toEqual([]);
  return messages.filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.line);
}

const racy = `export async function one(loops, res) {
  loops.reported += (await res.json()).usage.total_tokens;
  loops.answers -= await Promise.resolve(0);
}
`;
const atomic = `export async function one(loops, res) {
  const usage = (await res.json()).usage.total_tokens;
  loops.reported += usage;
  loops.cached ??= await Promise.resolve(0);
}
`;

describe('summing usage across concurrent clients (eslint.config.js)', () => {
  it('refuses a compound assignment that awaits, in the update test and the accounting specs', async () => {
    for (const path of ['test/update/lint-probe.js', 'test/browser/update-handover.spec.ts', 'test/browser/accounting.spec.ts']) {
      expect(await awaitedTallies(path, racy)).toEqual([2, 3]);
      expect(await awaitedTallies(path, atomic)).toEqual([]);
    }
  });

  it('the probe itself reads each body before adding to the sum', async () => {
    const probe = 'test/update/probe.js';
    expect(await awaitedTallies(probe, readFileSync(resolve(root, probe), 'utf8'))).toEqual([]);
  });
});
