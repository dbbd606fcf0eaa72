// The third-party notices (scripts/notices.ts): the packages come from a real bundle's module list, and each
// carries its version, licence and licence text; a bundled package without a licence fails loudly.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { afterAll, describe, expect, it } from 'vitest';
import { EMBEDDED, NoticeCollector, packageDirOf, packageNotice } from '../../../scripts/notices';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const nm = (name: string) => join(ROOT, 'node_modules', name);
const version = (name: string) => (JSON.parse(readFileSync(join(nm(name), 'package.json'), 'utf8')) as { version: string }).version;

describe('the package a bundled module comes from', () => {
  it('is its nearest node_modules folder (scoped, nested, with a query or a virtual prefix); inpage’s own modules have none', () => {
    expect(packageDirOf('/r/node_modules/marked/lib/marked.esm.js', '/r')).toBe('/r/node_modules/marked');
    expect(packageDirOf('/r/node_modules/@wllama/wllama/esm/wasm/wllama.wasm?url', '/r')).toBe('/r/node_modules/@wllama/wllama');
    expect(packageDirOf('/r/node_modules/a/node_modules/@b/c/index.js', '/r')).toBe('/r/node_modules/a/node_modules/@b/c');
    expect(packageDirOf('\0/r/node_modules/zod/v4/mini/index.js?commonjs-proxy', '/r')).toBe('/r/node_modules/zod');
    // The bundler's own helpers, written in under virtual ids.
    expect(packageDirOf('\0vite/preload-helper.js', '/r')).toBe('/r/node_modules/vite');
    expect(packageDirOf('\0rolldown/runtime.js', '/r')).toBe('/r/node_modules/rolldown');
    expect(packageDirOf('/r/src/page/main.ts', '/r')).toBeUndefined();
    expect(packageDirOf('/r/index.html?html-proxy&index=0.js', '/r')).toBeUndefined();
  });
});

describe('a package’s notice', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'inpage-notices-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('is its package.json’s name, version and licence and every licence file it ships', () => {
    const notice = packageNotice(nm('marked'));
    expect({ name: notice.name, version: notice.version, licence: notice.licence }).toEqual({ name: 'marked', version: version('marked'), licence: 'MIT' });
    expect(notice.texts.map((t) => t.file)).toEqual(['LICENSE']);
    expect(notice.texts[0]!.text).toBe(readFileSync(join(nm('marked'), 'LICENSE'), 'utf8'));
    // tslib's licence file is LICENSE.txt (and its CopyrightNotice.txt is no licence file by name).
    expect(packageNotice(nm('tslib')).texts.map((t) => t.file)).toEqual(['LICENSE.txt']);
  });

  it('adds what the package embeds: llama.cpp’s licence for wllama’s wasm; loglevel’s and tslib’s installed licences for web-llm', () => {
    const wllama = packageNotice(nm('@wllama/wllama'));
    expect(wllama.texts.map((t) => t.file)).toEqual(['LICENCE', 'llama.cpp and ggml (https://github.com/ggml-org/llama.cpp), compiled into wllama.wasm (MIT)']);
    expect(wllama.texts[1]!.text).toContain('Copyright (c) 2023-2024 The ggml authors');
    const webllm = packageNotice(nm('@mlc-ai/web-llm'));
    expect(webllm.licence).toBe('Apache-2.0');
    expect(webllm.texts[0]!.text).toContain('Apache License');
    const loglevel = webllm.texts.find((t) => t.file.startsWith('loglevel, bundled'))!;
    expect(loglevel.file).toBe(`loglevel, bundled into lib/index.js: loglevel ${version('loglevel')} (MIT), LICENSE-MIT`);
    expect(loglevel.text).toBe(readFileSync(join(nm('loglevel'), 'LICENSE-MIT'), 'utf8'));
    expect(webllm.texts.some((t) => t.file.startsWith("tslib's helpers, bundled into lib/index.js: tslib ") && t.text.includes('Microsoft'))).toBe(true);
    expect(webllm.texts).toHaveLength(1 + EMBEDDED['@mlc-ai/web-llm']!.length);
  });

  it('fails loudly for a package that ships no licence file and embeds nothing listed', () => {
    const dir = join(scratch, 'node_modules', 'unlicensed');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'unlicensed', version: '1.0.0', license: 'MIT' }));
    writeFileSync(join(dir, 'index.js'), 'export default 1;\n');
    expect(() => packageNotice(dir)).toThrow(/unlicensed@1\.0\.0 \(MIT\) is bundled but ships no licence file/);
  });
});

describe('the notices of a real bundle', () => {
  const scratch = mkdtempSync(join(ROOT, 'node_modules', '.inpage-notices-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('list exactly the packages the bundle carries, from the bundler’s module list, with their licence texts, after inpage’s own licence', async () => {
    // An entry that uses marked and preact and imports wllama's wasm as a URL, and imports highlight.js but uses
    // nothing of it (tree-shaken: not carried, not listed).
    const entry = join(scratch, 'entry.js');
    writeFileSync(
      entry,
      [
        "import { marked } from 'marked';",
        "import { h, render } from 'preact';",
        "import wasm from '@wllama/wllama/esm/wasm/wllama.wasm?url';",
        "import 'highlight.js/lib/core';",
        'export const run = (el) => render(h("p", null, marked.parse("*hi*") + wasm), el);',
      ].join('\n'),
    );
    const collector = new NoticeCollector();
    await build({
      configFile: false,
      root: ROOT,
      logLevel: 'silent',
      plugins: [collector.recorder()],
      build: { write: false, lib: { entry, formats: ['es'], fileName: 'entry' }, minify: false },
    });
    const names = collector.packages().map((p) => `${p.name}@${p.version}`);
    expect(names).toEqual([`@wllama/wllama@${version('@wllama/wllama')}`, `marked@${version('marked')}`, `preact@${version('preact')}`]);

    const text = collector.text();
    const own = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string; license: string };
    expect(own.license).toBe('MIT');
    expect(text.startsWith(`${own.name} ${own.version} (MIT) and the third-party software it bundles.\n`)).toBe(true);
    expect(text).toContain(readFileSync(join(ROOT, 'LICENSE'), 'utf8').trimEnd());
    expect(text).toContain(
      `Bundled third-party packages (3):\n  @wllama/wllama ${version('@wllama/wllama')} — MIT\n  marked ${version('marked')} — MIT\n  preact ${version('preact')} — MIT\n`,
    );
    for (const name of ['marked', 'preact']) {
      for (const { text: licence } of packageNotice(nm(name)).texts) expect(text).toContain(licence.trimEnd());
    }
    expect(text).toContain('Copyright (c) 2023-2024 The ggml authors');
    expect(text).not.toContain('highlight.js');
  });
});
