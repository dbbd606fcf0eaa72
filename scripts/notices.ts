// The licences and notices of everything a build bundles, generated from the bundler's own module list.
//
// A `NoticeCollector` is handed to every build that writes into one output (the app, its engine worker, the
// service worker bundled apart; or each of the npm package's builds): its `recorder()` plugin reads, for each
// written chunk, the modules rendered into it (Rolldown's `chunk.moduleIds`: what the bundle actually carries,
// wasm imported as `?url` included), maps each to the npm package it came from (its nearest `node_modules/<name>`),
// and `text()` writes inpage's own licence and then, per package, its name, version, licence and the text of every
// licence or notice file it ships. A bundled package that ships no licence file, and is not listed in
// EMBEDDED, fails the build: nothing is shipped without its notice.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The file name of the notices in a build's folder (the app's dist/; the npm package's lib/ has its own, `inpage-`-prefixed). */
export const NOTICES_FILE = 'THIRD-PARTY-NOTICES.txt';

/** A licence or notice file's name (LICENSE, LICENCE.md, COPYING, NOTICE, LICENSE-MIT…). */
const LICENCE_FILE = /^(licen[cs]e|copying|notice)([.-].*)?$/i;

/** Code a package carries inside its own files from another project, whose notice that package does not ship. */
export interface Embedded {
  what: string;
  /** An installed package whose notice this is (found from the carrying package's folder, as Node finds it). */
  package?: string;
  /** Or the licence's name and the other project's own licence text. */
  licence?: string;
  text?: string;
}

/** By carrying package: read from the bundles themselves (their copyright headers) and the packages' READMEs. */
export const EMBEDDED: Record<string, Embedded[]> = {
  // wllama's wasm is llama.cpp (and ggml) compiled; wllama's package ships its own MIT licence only.
  '@wllama/wllama': [
    {
      what: 'llama.cpp and ggml (https://github.com/ggml-org/llama.cpp), compiled into wllama.wasm',
      licence: 'MIT',
      text: `MIT License

Copyright (c) 2023-2024 The ggml authors

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
`,
    },
  ],
  // wllama's compat build (the same project and release as @wllama/wllama, whose MIT licence it does not ship): its
  // wasm and worker script are llama.cpp and ggml compiled, as wllama's.
  '@wllama/wllama-compat': [
    { what: 'wllama (https://github.com/ngxson/wllama), whose compat build this package is; its licence from @wllama/wllama', package: '@wllama/wllama' },
    {
      what: 'llama.cpp and ggml (https://github.com/ggml-org/llama.cpp), compiled into wasm/wllama.wasm and wasm/wllama.js',
      licence: 'MIT',
      text: 'The MIT License text and copyright given for llama.cpp and ggml under @wllama/wllama above.\n',
    },
  ],
  // web-llm's lib/index.js carries loglevel, tslib's helpers, TVM's runtime (tvmjs) and xgrammar, and types
  // adapted from openai-node; the last three are Apache-2.0, web-llm's own licence above.
  '@mlc-ai/web-llm': [
    { what: 'loglevel, bundled into lib/index.js', package: 'loglevel' },
    { what: "tslib's helpers, bundled into lib/index.js", package: 'tslib' },
    {
      what: 'Apache TVM Web runtime (tvmjs), xgrammar (https://github.com/mlc-ai/xgrammar) and types from openai-node (Copyright 2024 OpenAI), bundled into lib/index.js',
      licence: 'Apache-2.0',
      text: 'Licensed under the Apache License, Version 2.0: the text is the one given for @mlc-ai/web-llm above.\n',
    },
  ],
};

/** The folder of package `name` as Node would find it from `dir` (its node_modules, then each parent's). */
function installedFrom(dir: string, name: string): string {
  for (let at = dir; ; at = dirname(at)) {
    const candidate = join(at, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(at) === at) throw new Error(`notices: ${name} is not installed where ${dir} would find it.`);
  }
}

/** A package's name, version and licence (package.json), and its licence and notice files. */
function ownNotice(dir: string): PackageNotice {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; version: string; license?: string | { type: string } };
  const licence = typeof pkg.license === 'string' ? pkg.license : (pkg.license?.type ?? 'unknown');
  const texts = readdirSync(dir)
    .filter((file) => LICENCE_FILE.test(file))
    .sort()
    .map((file) => ({ file, text: readFileSync(join(dir, file), 'utf8') }));
  return { name: pkg.name, version: pkg.version, licence, texts };
}

/**
 * Helpers the bundler writes into a bundle under a virtual id (`\0vite/preload-helper.js`, `\0rolldown/runtime.js`):
 * code of the package named, installed at the repository's root.
 */
const VIRTUAL_PACKAGES: [RegExp, string][] = [
  [/^\0?vite\//, 'vite'],
  [/^\0?rolldown\//, 'rolldown'],
];

export interface PackageNotice {
  name: string;
  version: string;
  licence: string;
  /** Each licence or notice file the package ships (its name and text), then those of what it embeds (EMBEDDED). */
  texts: { file: string; text: string }[];
}

/** The folder of the npm package a bundled module comes from, or undefined for inpage's own (and virtual) modules. */
export function packageDirOf(moduleId: string, root = ROOT): string | undefined {
  const virtual = VIRTUAL_PACKAGES.find(([pattern]) => pattern.test(moduleId));
  if (virtual) return join(root, 'node_modules', virtual[1]);
  const path = moduleId.replace(/^\0/, '').split('?')[0]!.split(sep).join('/');
  const at = path.lastIndexOf('/node_modules/');
  if (at < 0) return undefined;
  const rest = path.slice(at + '/node_modules/'.length).split('/');
  const name = rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  return `${path.slice(0, at)}/node_modules/${name}`;
}

/** A package's notice: its own (ownNotice), then that of each thing it embeds (EMBEDDED). */
export function packageNotice(dir: string): PackageNotice {
  const notice = ownNotice(dir);
  for (const embedded of EMBEDDED[notice.name] ?? []) {
    if (embedded.package) {
      const other = ownNotice(installedFrom(dir, embedded.package));
      for (const { file, text } of other.texts)
        notice.texts.push({ file: `${embedded.what}: ${other.name} ${other.version} (${other.licence}), ${file}`, text });
    } else {
      notice.texts.push({ file: `${embedded.what} (${embedded.licence})`, text: embedded.text ?? '' });
    }
  }
  if (notice.texts.length === 0) {
    throw new Error(
      `notices: ${notice.name}@${notice.version} (${notice.licence}) is bundled but ships no licence file in ${dir}: add its licence text to EMBEDDED (scripts/notices.ts).`,
    );
  }
  return notice;
}

const RULE = '-'.repeat(78);

export class NoticeCollector {
  readonly #dirs = new Set<string>();

  /** Records the packages of these module ids (inpage's own modules are skipped). */
  add(moduleIds: Iterable<string>): void {
    for (const id of moduleIds) {
      const dir = packageDirOf(id);
      if (dir && existsSync(join(dir, 'package.json'))) this.#dirs.add(dir);
    }
  }

  /** A plugin for each build (and each worker build) that writes into the output: records its chunks' modules. */
  recorder(): Plugin {
    return {
      name: 'inpage:notices-recorder',
      apply: 'build',
      generateBundle: (_options, bundle) => {
        for (const output of Object.values(bundle)) if (output.type === 'chunk') this.add(output.moduleIds);
      },
    };
  }

  /** The bundled packages' notices, by name (one entry per name and version). */
  packages(): PackageNotice[] {
    const byKey = new Map<string, PackageNotice>();
    for (const dir of this.#dirs) {
      const notice = packageNotice(dir);
      byKey.set(`${notice.name}@${notice.version}`, notice);
    }
    return [...byKey.values()].sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
  }

  /** The notices file: inpage's own licence, a list of the bundled packages, then each one's licence texts. */
  text(): string {
    const packages = this.packages();
    const own = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string; license: string };
    const parts = [
      `${own.name} ${own.version} (${own.license}) and the third-party software it bundles.`,
      '',
      RULE,
      `${own.name} ${own.version} — ${own.license}`,
      RULE,
      readFileSync(join(ROOT, 'LICENSE'), 'utf8').trimEnd(),
      '',
      RULE,
      `Bundled third-party packages (${packages.length}):`,
      ...packages.map((p) => `  ${p.name} ${p.version} — ${p.licence}`),
    ];
    for (const p of packages) {
      parts.push('', RULE, `${p.name} ${p.version} — ${p.licence}`, RULE);
      for (const { file, text } of p.texts) parts.push(`[${file}]`, '', text.trimEnd(), '');
    }
    return `${parts.join('\n').trimEnd()}\n`;
  }

  write(file: string): void {
    writeFileSync(file, this.text());
  }
}

/**
 * For vite.config.ts: one collector for the app's build, its worker builds and the service worker built apart
 * (pass `collector.recorder()` to those); the notices file is (re)written into the build's folder when each build
 * closes, so the last to close writes them all.
 */
export function noticesFile(collector: NoticeCollector, file = NOTICES_FILE): Plugin {
  let outDir = '';
  return {
    ...collector.recorder(),
    name: 'inpage:notices',
    configResolved(config) {
      outDir = join(config.root, config.build.outDir);
    },
    closeBundle() {
      collector.write(join(outDir, file));
    },
  };
}
