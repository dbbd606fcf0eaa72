// The production build (`npm run build`, served as a deployment serves dist/) carries inpage's licence and the
// notices of every package it bundles (scripts/notices.ts), in THIRD-PARTY-NOTICES.txt at its root.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const versionOf = (name: string) => (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

test('THIRD-PARTY-NOTICES.txt: inpage’s MIT licence, then every package the app, its workers and sw.js bundle, each with its licence text', async ({
  request,
}) => {
  const res = await request.get('/THIRD-PARTY-NOTICES.txt');
  expect(res.status()).toBe(200);
  const notices = await res.text();
  expect(notices.startsWith('inpage 0.1.0 (MIT) and the third-party software it bundles.\n')).toBe(true);
  expect(notices).toContain(readFileSync(join(ROOT, 'LICENSE'), 'utf8').trimEnd());
  const listed = [...notices.matchAll(/^ {2}(\S+) (\S+) — (.+)$/gm)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
  // The page's (marked, DOMPurify, highlight.js, KaTeX, preact, idb; pdf.js, loaded when a PDF is attached), the
  // engine worker's (web-llm, wllama, comlink), the service worker's (hono, zod, workbox; the MCP client and what it
  // brings: eventsource, content-type, pkce-challenge, but not ajv, scripts/mcp-client-alias.ts) and the bundler's own
  // helpers.
  const expected: [string, string][] = [
    ['@mlc-ai/web-llm', 'Apache-2.0'],
    ['@modelcontextprotocol/sdk', 'MIT'],
    ['@wllama/wllama', 'MIT'],
    ['@wllama/wllama-compat', 'MIT'],
    ['comlink', 'Apache-2.0'],
    ['content-type', 'MIT'],
    ['dompurify', '(MPL-2.0 OR Apache-2.0)'],
    ['eventsource', 'MIT'],
    ['eventsource-parser', 'MIT'],
    ['highlight.js', 'BSD-3-Clause'],
    ['hono', 'MIT'],
    ['idb', 'ISC'],
    ['katex', 'MIT'],
    ['marked', 'MIT'],
    ['pdfjs-dist', 'Apache-2.0'],
    ['pkce-challenge', 'MIT'],
    ['preact', 'MIT'],
    ['rolldown', 'MIT'],
    ['vite', 'MIT'],
    ['workbox-core', 'MIT'],
    ['workbox-precaching', 'MIT'],
    ['workbox-routing', 'MIT'],
    ['workbox-strategies', 'MIT'],
    ['zod', 'MIT'],
  ];
  expect(listed).toEqual(expected.map(([name, licence]) => `${name} ${versionOf(name)} ${licence}`));
  // Each package's own licence file, and what web-llm and wllama embed.
  for (const [name] of expected) expect(notices).toContain(`\n${name} ${versionOf(name)} — `);
  expect(notices).toContain(readFileSync(join(ROOT, 'node_modules/highlight.js/LICENSE'), 'utf8').trimEnd());
  expect(notices).toContain('Copyright (c) 2023-2024 The ggml authors');
  expect(notices).toContain(readFileSync(join(ROOT, 'node_modules/loglevel/LICENSE-MIT'), 'utf8').trimEnd());
});
