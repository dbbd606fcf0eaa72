// xgrammar (@mlc-ai/web-xgrammar, the version web-llm 0.2.86 bundles) in Node, for tests that run grammars on
// strings: the EBNF inpage writes (json-grammar.ts) and the formats web-llm compiles.
import { createRequire } from 'node:module';

export type Xg = {
  TokenizerInfo: { createTokenizerInfo(v: string[]): Promise<unknown> };
  GrammarCompiler: {
    createGrammarCompiler(
      t: unknown,
      cache: boolean,
    ): Promise<{
      compileStructuralTag(s: string): Promise<unknown>;
      compileJSONSchema(s: string): Promise<unknown>;
      compileGrammar(ebnf: string): Promise<unknown>;
    }>;
  };
  GrammarMatcher: {
    createGrammarMatcher(
      g: unknown,
      a?: unknown,
      b?: boolean,
    ): Promise<{ _acceptString(s: string, d: boolean): boolean; isTerminated(): boolean; dispose(): void }>;
  };
};

let loaded: Promise<{ xg: Xg; compiler: Awaited<ReturnType<Xg['GrammarCompiler']['createGrammarCompiler']>> }> | undefined;

/** xgrammar and a compiler with an empty vocabulary (strings are matched character by character). */
export function xgrammar() {
  loaded ??= (async () => {
    // web-xgrammar is a UMD bundle for browsers: give it what it looks for in Node, then it sets globalThis.xgrammar.
    const g = globalThis as Record<string, unknown>;
    g.require = createRequire(import.meta.url);
    g.__filename = createRequire(import.meta.url).resolve('@mlc-ai/web-xgrammar');
    await import('@mlc-ai/web-xgrammar');
    const xg = g.xgrammar as Xg;
    return { xg, compiler: await xg.GrammarCompiler.createGrammarCompiler(await xg.TokenizerInfo.createTokenizerInfo([]), false) };
  })();
  return loaded;
}

/** Whether the compiled grammar accepts `text` whole. */
export async function matches(grammar: unknown, text: string): Promise<boolean> {
  const { xg } = await xgrammar();
  const matcher = await xg.GrammarMatcher.createGrammarMatcher(grammar, undefined, true);
  try {
    return matcher._acceptString(text, false) && matcher.isTerminated();
  } finally {
    matcher.dispose();
  }
}
