// Node module hooks that let `node --test` run the Firefox smoke set in TypeScript and import the repository's
// TypeScript helpers as they are: `.ts` files are stripped of their types by rolldown's transform (Oxc, the one
// Vite uses), and extensionless relative imports (the repository's "bundler" resolution) find their `.ts` file.
import { readFile } from 'node:fs/promises';
import { transformSync } from 'rolldown/experimental';

const TS = /\.m?ts$/;

export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (err) {
    const relative = specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('file:');
    if (!relative || err?.code !== 'ERR_MODULE_NOT_FOUND' || !context.parentURL || !TS.test(new URL(context.parentURL).pathname)) throw err;
    for (const candidate of [`${specifier}.ts`, `${specifier}/index.ts`]) {
      try {
        return await nextResolve(candidate, context);
      } catch {
        // the next candidate
      }
    }
    throw err;
  }
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !TS.test(new URL(url).pathname)) return nextLoad(url, context);
  const path = new URL(url).pathname;
  const result = transformSync(path, await readFile(path, 'utf8'), { lang: 'ts', sourcemap: true });
  if (result.errors.length > 0) throw new Error(`${path}: ${result.errors.map((e) => e.message).join('; ')}`);
  const map = Buffer.from(JSON.stringify(result.map)).toString('base64');
  return { format: 'module', source: `${result.code}\n//# sourceMappingURL=data:application/json;base64,${map}`, shortCircuit: true };
}
