// The fixed ports the tests' servers listen on (each plus INPAGE_PORT_OFFSET) belong to one file each: two specs
// on one port fail each other at random when they run in parallel (the hybrid upstream once shared 4650 with the
// llama.cpp import spec).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect, it } from 'vitest';

const root = resolve(dirname(new URL(import.meta.url).pathname), '../../..');
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.(ts|mjs)$/.test(name) ? [path] : [];
  });

it('gives each fixed test port to one file', () => {
  const owners = new Map<number, Set<string>>();
  const sources = [...files(join(root, 'test')), ...files(join(root, 'scripts')), join(root, 'playwright.config.ts')];
  for (const file of sources) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(
      /(?:\b[A-Za-z]*[pP]ort[A-Za-z]*: |\bconsumer[A-D]: |\bprovider: |serveStatic\(|listen\(|PORT = |_PORT \?\? |\$\{)(4[5-9]\d\d)\b/g,
    )) {
      const port = Number(m[1]);
      if (!owners.has(port)) owners.set(port, new Set());
      owners.get(port)!.add(relative(root, file));
    }
  }
  expect(owners.size).toBeGreaterThan(10);
  // Ports named by role (consumerA and the others in test/shared/server.ts) are found too.
  expect([...(owners.get(4900) ?? [])]).toEqual(['test/shared/server.ts']);
  // Modules that only name another file's port (a client of that server) are its users, not its owners.
  // The llama.cpp profile (not a test) takes the bench's ports, as bench.mjs's own rows do, and runs apart from it.
  const users = new Set(['test/upstream/server.ts', 'test/browser/hybrid.spec.ts', 'test/browser/hybrid-clients.spec.ts', 'scripts/profile-llama.mjs']);
  const shared = [...owners].filter(([, by]) => [...by].filter((f) => !users.has(f)).length > 1).map(([port, by]) => `${port}: ${[...by].join(', ')}`);
  expect(shared).toEqual([]);
});
