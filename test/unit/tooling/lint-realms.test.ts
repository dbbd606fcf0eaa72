// The realms' import boundaries (eslint.config.js, run by `npm run lint`) fail on a deliberate violation: ESLint's
// own API lints an in-memory file placed in each realm, with the project's configuration, and the rule must name it.
// The lint of the tree itself (no violation, no import circle) is `npm run lint`.
import { existsSync, readdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ESLint, type Linter } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(new URL(import.meta.url).pathname), '../../..');
// Import circles are `npm run lint`'s to find in the tree: following every import from each probe is slow.
const eslint = new ESLint({ cwd: root, overrideConfig: { rules: { 'import-x/no-cycle': 'off' } } });

/** The boundary errors ESLint reports for `code` as if it were the file `path` (relative to the root). */
async function boundaryErrors(path: string, code: string): Promise<{ rule: string | null; message: string }[]> {
  const [result] = await eslint.lintText(code, { filePath: resolve(root, path) });
  const messages: Linter.LintMessage[] = result?.messages ?? [];
  const fatal = messages.filter((m) => m.fatal);
  expect(fatal).toEqual([]);
  return messages
    .filter((m) => m.ruleId === 'import-x/no-restricted-paths' || m.ruleId === 'no-restricted-imports' || m.ruleId === 'import-x/no-unresolved')
    .map((m) => ({ rule: m.ruleId, message: m.message }));
}

const restricted = (message: string) => [{ rule: 'import-x/no-restricted-paths', message: expect.stringContaining(message) }];

describe('the realms (eslint.config.js)', () => {
  it('follows #shared/ imports (and refuses one it cannot follow, which the realm rules could not see)', async () => {
    expect(await boundaryErrors('worker/engine/lint-probe.ts', "import { ApiError } from '#shared/protocol/errors';\nexport const x = ApiError;\n")).toEqual(
      [],
    );
    expect(
      await boundaryErrors('worker/engine/lint-probe.ts', "import { nothing } from '#shared/protocol/no-such-file';\nexport const x = nothing;\n"),
    ).toEqual([{ rule: 'import-x/no-unresolved', message: expect.stringContaining('#shared/protocol/no-such-file') }]);
  });

  it('src/shared imports nothing of ours outside src/shared', async () => {
    expect(await boundaryErrors('src/shared/lint-probe.ts', "import { startServiceCore } from '../lib/inpage';\nexport const x = startServiceCore;\n")).toEqual(
      restricted('src/shared imports nothing of ours outside src/shared'),
    );
    expect(
      await boundaryErrors('src/shared/wire/lint-probe.ts', "import { createApp as app } from '../../../worker/sw/app';\nexport const x = app;\n"),
    ).toEqual(restricted('src/shared imports nothing of ours outside src/shared'));
    expect(await boundaryErrors('src/shared/wire/lint-probe.ts', "import { ApiError } from '../protocol/errors';\nexport const x = ApiError;\n")).toEqual([]);
  });

  it('the engine worker imports neither the service worker nor page code', async () => {
    expect(await boundaryErrors('worker/engine/lint-probe.ts', "import { createApp as app } from '../sw/app';\nexport const x = app;\n")).toEqual(
      restricted('The engine worker never imports the service worker'),
    );
    expect(
      await boundaryErrors(
        'worker/engine/common/lint-probe.ts',
        "import { startServiceCore } from '../../../src/lib/inpage';\nexport const x = startServiceCore;\n",
      ),
    ).toEqual(restricted('The engine worker never imports page code'));
  });

  it('the service worker imports neither page code nor the engine worker', async () => {
    expect(await boundaryErrors('worker/sw/lint-probe.ts', "import { Scheduler } from '../engine/scheduler';\nexport const x = Scheduler;\n")).toEqual(
      restricted('The service worker never imports the engine worker'),
    );
    expect(
      await boundaryErrors('worker/sw/chat/lint-probe.ts', "import { startServiceCore } from '../../../src/lib/inpage';\nexport const x = startServiceCore;\n"),
    ).toEqual(restricted('The service worker never imports page code'));
    expect(await boundaryErrors('worker/sw.ts', "import { startServiceCore } from '../src/lib/inpage';\nexport const x = startServiceCore;\n")).toEqual(
      restricted('The service worker never imports page code'),
    );
  });

  it("page code imports no worker/ code, only the engine worker's entry as a URL", async () => {
    expect(await boundaryErrors('src/page/lint-probe.ts', "import { createApp as app } from '../../worker/sw/app';\nexport const x = app;\n")).toEqual(
      restricted('Page code never imports worker/ code'),
    );
    expect(await boundaryErrors('src/lib/lint-probe.ts', "import { Scheduler } from '../../worker/engine/scheduler';\nexport const x = Scheduler;\n")).toEqual(
      restricted('Page code never imports worker/ code'),
    );
    expect(
      await boundaryErrors('src/page/lint-probe.ts', "import script from '../../worker/engine/engine-worker.ts?worker&url';\nexport const x = script;\n"),
    ).toEqual([]);
    expect(await boundaryErrors('src/page/lint-probe.ts', "import '../../worker/engine/engine-worker.ts';\n")).toEqual([
      { rule: 'no-restricted-imports', message: expect.stringContaining("engine worker's entry only as a URL") },
    ]);
  });

  const areasDir = resolve(root, 'src/page/ui/areas');
  const areas = existsSync(areasDir)
    ? readdirSync(areasDir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
    : [];
  it.skipIf(areas.length < 2)(`no workspace area imports another (areas: ${areas.join(', ') || 'none yet'})`, async () => {
    const [one, other] = areas as [string, string];
    expect(await boundaryErrors(`src/page/ui/areas/${one}/lint-probe.ts`, `import * as other from '../${other}';\nexport const x = other;\n`)).toEqual(
      restricted('A workspace area never imports another area'),
    );
    expect(await boundaryErrors(`src/page/ui/areas/${one}/lint-probe.ts`, `import * as own from '.';\nexport const x = own;\n`)).toEqual([]);
  });
});
