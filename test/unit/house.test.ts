// The shape of the house, kept: no import circles among the product's modules (src/, worker/), and no import
// from src/ (the page, the protocol, the library) into worker/ (the workers' own code).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(new URL(import.meta.url).pathname), '../..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const product = [...files(join(root, 'src')), ...files(join(root, 'worker'))];
const known = new Set(product);

/** The product modules a file imports (static, dynamic and type-only imports alike). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)|(?:^|\n)\s*import\s+'([^']+)'/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
  return specifiers
    .filter((s) => s.startsWith('.'))
    .map((s) => resolve(dirname(file), s))
    .map((base) => [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((candidate) => known.has(candidate)))
    .filter((path): path is string => path !== undefined);
}

const graph = new Map(product.map((file) => [file, importsOf(file)]));
const name = (file: string) => relative(root, file);

describe('the house', () => {
  it('finds the imports it checks (the check can see the graph)', () => {
    expect(product.length).toBeGreaterThan(100);
    expect(graph.get(join(root, 'worker/engine/scheduler.ts'))).toContain(join(root, 'worker/engine/engine.ts'));
  });

  it('has no import circles among src/ and worker/', () => {
    const circles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const path: string[] = [];
    const visit = (file: string) => {
      state.set(file, 'open');
      path.push(file);
      for (const next of graph.get(file) ?? []) {
        if (state.get(next) === 'open') circles.push([...path.slice(path.indexOf(next)), next].map(name).join(' → '));
        else if (!state.has(next)) visit(next);
      }
      path.pop();
      state.set(file, 'done');
    };
    for (const file of product) if (!state.has(file)) visit(file);
    expect(circles).toEqual([]);
  });

  it('imports nothing of worker/ from src/', () => {
    const arrows = product
      .filter((file) => name(file).startsWith('src/'))
      .flatMap((file) => (graph.get(file) ?? []).filter((to) => name(to).startsWith('worker/')).map((to) => `${name(file)} → ${name(to)}`));
    expect(arrows).toEqual([]);
  });
});
