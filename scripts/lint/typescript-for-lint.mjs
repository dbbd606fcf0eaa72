// typescript-eslint parses with TypeScript's JavaScript compiler API, which TypeScript 7 (the project's `typescript`,
// the native compiler: `tsc -p .`) no longer ships. The linters get TypeScript 6 under the alias
// `typescript-for-lint` (package.json); this sends their `require('typescript')` there. Imported first by
// eslint.config.js, so it acts only in a process that lints.
import Module from 'node:module';

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const redirected = request === 'typescript' || request.startsWith('typescript/') ? `typescript-for-lint${request.slice('typescript'.length)}` : request;
  return resolveFilename.call(this, redirected, ...rest);
};
