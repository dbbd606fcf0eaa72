// The head of a tool call written as JSON, up to its arguments: `{"name": "…", "arguments": ` (whitespace allowed
// between the tokens). One concept for every engine that reads calls out of a model's text: llama.cpp's forced
// call (llamacpp/run.ts) and web-llm's tool-call formats (webllm/tool-formats/). The name is group 1 (a JSON
// string); the match ends where the arguments' value begins (its first character is there, not yet consumed).

/** The head with the arguments under one of `argumentKeys` (Llama 3 writes `parameters`). */
export function callHead(argumentKeys: readonly string[] = ['arguments']): RegExp {
  const keys = argumentKeys.map((key) => `"${key}"`).join('|');
  return new RegExp(`^\\s*\\{\\s*"name"\\s*:\\s*("(?:[^"\\\\]|\\\\.)*")\\s*,\\s*(?:${keys})\\s*:\\s*(?=\\S)`);
}

/** `{"name": "…", "arguments": ` */
export const CALL_HEAD = callHead();
