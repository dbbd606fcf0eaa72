// What the service worker's builds give the MCP SDK's client in place of its ajv-based validator
// (scripts/mcp-client-alias.ts): inpage passes a validator of its own (mcp.ts), so this is never constructed.
export class AjvJsonSchemaValidator {
  constructor() {
    throw new Error('inpage: the MCP client was created without its jsonSchemaValidator (worker/sw/responses/mcp.ts gives one).');
  }
}
