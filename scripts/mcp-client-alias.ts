// The MCP SDK's client (worker/sw/responses/mcp.ts) imports its ajv-based JSON-schema validator as the default it
// uses when given none, which brings ajv, ajv-formats and their helpers into the service worker. inpage always gives
// the client a validator of its own (mcp.ts), so every build of a service worker (vite.config.ts, build-lib.ts,
// build-pkg.ts) resolves that import to a stub that says so if it is ever constructed (worker/sw/responses/ajv-stub.ts).
import { fileURLToPath } from 'node:url';

export const mcpClientAlias: Record<string, string> = {
  // The specifier as the SDK's dist/esm/client/index.js writes it (an alias matches it exactly).
  '../validation/ajv-provider.js': fileURLToPath(new URL('../worker/sw/responses/ajv-stub.ts', import.meta.url)),
};
