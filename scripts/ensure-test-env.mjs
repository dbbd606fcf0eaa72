#!/usr/bin/env node
// What `npm test` needs beyond `npm install`, found or installed before anything else runs (`pretest`; `.ci/run`
// runs it too): the browsers the tests drive — Chromium (Playwright, vitest's browser tests, test:shared, the
// package test), Firefox ESR (test:firefox), WebKitWebDriver and Xvfb (the WebKit smoke set) — at Debian's paths,
// or Chromium and Firefox where CHROMIUM_PATH / FIREFOX_PATH say. On Debian as root the missing ones are installed
// with apt-get (Debian's packages); anywhere else it stops at once with one line naming the command to run.
// Then native llama.cpp (node-llama-cpp and this machine's binary only) for the tests that run it, installed into
// a git-ignored folder rather than by every `npm install` (scripts/native-llama.mjs).
// Node's own modules only: it runs before and without node_modules.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { ensureNodeLlamaCpp } from './native-llama.mjs';

/** Each browser (or display) the tests use: where they look for it, and Debian's package of it. */
const NEEDED = [
  { what: 'Chromium', path: process.env.CHROMIUM_PATH || '/usr/bin/chromium', env: 'CHROMIUM_PATH', debian: 'chromium' },
  { what: 'Firefox ESR', path: process.env.FIREFOX_PATH || '/usr/bin/firefox-esr', env: 'FIREFOX_PATH', debian: 'firefox-esr' },
  { what: 'WebKitWebDriver', path: '/usr/bin/WebKitWebDriver', debian: 'webkit2gtk-driver' },
  { what: 'Xvfb', path: '/usr/bin/Xvfb', debian: 'xvfb' },
];

const executable = (path) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** The browsers not found where the tests look for them. */
const missing = () => NEEDED.filter((need) => !executable(need.path));

function stop(line) {
  console.error(line);
  process.exit(1);
}

const lacking = missing();
if (lacking.length > 0) {
  const names = lacking.map((need) => need.what).join(', ');
  const packages = lacking.map((need) => need.debian);
  const debian = existsSync('/etc/debian_version');
  const root = process.getuid?.() === 0;
  if (!debian) {
    const own = lacking.filter((need) => need.env).map((need) => `${need.env}=/path/to/${need.debian}`);
    stop(
      `npm test needs ${names}: install them (Debian: apt-get install -y ${packages.join(' ')})${own.length ? ` or point ${own.join(' ')} at your own` : ''}, then run npm test again.`,
    );
  }
  if (!root) stop(`npm test needs ${names}: run  sudo apt-get update && sudo apt-get install -y ${packages.join(' ')}  then npm test again.`);
  console.log(`npm test: installing Debian's ${packages.join(' ')} (${names} not found)…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', ...packages],
  ]) {
    const run = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env });
    if (run.status !== 0)
      stop(`apt-get ${args.join(' ')} failed (exit ${run.status ?? run.error?.message}): install ${packages.join(' ')} yourself, then run npm test again.`);
  }
  const still = missing();
  if (still.length > 0) stop(`npm test: after apt-get install, still not found: ${still.map((need) => `${need.what} at ${need.path}`).join(', ')}.`);
}

ensureNodeLlamaCpp();
