#!/usr/bin/env node
// The package test (test/package/package.test.ts) in node's test runner, once per Vite: the apps' own (what their
// package.json names) and the lowest inpage's peer range (package.json `peerDependencies.vite`) names, each
// installing its dependencies as asked:
//   npm run test:package                    from the lockfiles (test/package/locks/<variant>/), `npm ci`: CI's run
//   npm run test:package -- --newest        the newest release in each app's ranges, as a fresh `npm install` gets
//   npm run test:package -- --update-locks  as --newest, then writes those installs' lockfiles (commit them)
//   npm run test:package -- --vite=lowest   one Vite only (`lowest`, `X.Y.Z`, or `own`: the apps' own)
// --newest (or --update-locks) is run before every release and every stop of a developer's session, so a Vite or a
// plugin released since the lockfiles were made is tested before a fresh machine meets it (docs/development.md).
import { spawnSync } from 'node:child_process';

const env = { ...process.env };
let vites = ['own', 'lowest'];
for (const arg of process.argv.slice(2)) {
  if (arg === '--newest') env.INPAGE_PACKAGE_DEPS = 'newest';
  else if (arg === '--update-locks') env.INPAGE_PACKAGE_UPDATE_LOCKS = '1';
  else if (arg.startsWith('--vite=')) vites = [arg.slice('--vite='.length)];
  else {
    console.error(`test:package: unknown option ${arg} (--newest, --update-locks, --vite=lowest|X.Y.Z)`);
    process.exit(2);
  }
}
for (const vite of vites) {
  const run = spawnSync(
    process.execPath,
    [
      '--import',
      './test/firefox/register-ts.mjs',
      '--test',
      '--test-reporter=spec',
      '--test-concurrency=1',
      '--test-timeout=1800000',
      'test/package/package.test.ts',
    ],
    { stdio: 'inherit', env: { ...env, INPAGE_PACKAGE_VITE: vite === 'own' ? '' : vite } },
  );
  if (run.status !== 0) process.exit(run.status ?? 1);
}
