// Phi-4-mini-instruct's tool format (its model card): the tools as a JSON list between `<|tool|>` and `<|/tool|>`
// in the system turn; the model answers `<|tool_call|>`, a JSON list of `{"name": …, "arguments": {…}}`, and
// `<|/tool_call|>`; a call in history is that block; results are the contents of the tool turns (`<|tool_response|>`
// in the card's template), here a user turn, as web-llm's Phi template has no tool role.
import type { ResponseFormat as WebLlmResponseFormat } from '@mlc-ai/web-llm';
import type { FunctionTool, ToolCall } from '#shared/protocol/types';
import type { ToolPlan } from '../../common/plan';
import { argumentsTag, callable, pythonJson, structuralTag, type Format } from './grammar';
import { JsonCallsParser, type JsonCallsSpec } from './json-calls-parser';
import type { ToolFormat, ToolResult } from './types';

export const TOOL_CALL_OPEN = '<|tool_call|>';
export const TOOL_CALL_CLOSE = '<|/tool_call|>';

const SPEC: JsonCallsSpec = { regions: [{ marker: TOOL_CALL_OPEN, list: 'list', close: TOOL_CALL_CLOSE }], argumentKeys: ['arguments', 'parameters'] };

function systemWithTools(system: string | null, tools: readonly FunctionTool[]): string {
  const list = tools.map(({ function: { name, description, parameters } }) => ({ name, description, parameters }));
  return `${system ?? 'You are a helpful assistant with some tools.'}<|tool|>${pythonJson(list)}<|/tool|>`;
}

const callPrefix = (name: string) => `{"name": ${JSON.stringify(name)}, "arguments": `;

function assistantText(content: string, calls: readonly ToolCall[]): string {
  if (calls.length === 0) return content;
  const list = calls.map((call) => `${callPrefix(call.function.name)}${call.function.arguments || '{}'}}`).join(', ');
  return `${content}${TOOL_CALL_OPEN}[${list}]${TOOL_CALL_CLOSE}`;
}

/**
 * `auto`: a `<|tool_call|>` trigger opens a block of one call (held to its tool's schema); with parallel calls on,
 * the model may open another. `required` / named: the answer is one block of calls, nothing else (left unclosed).
 */
function toolCallFormat(plan: ToolPlan): WebLlmResponseFormat {
  const tools = callable(plan);
  if (plan.mode === 'auto') {
    const tags = tools.map((tool) => argumentsTag(tool, `${TOOL_CALL_OPEN}[${callPrefix(tool.function.name)}`, `}]${TOOL_CALL_CLOSE}`));
    return structuralTag({ type: 'triggered_tags', triggers: [TOOL_CALL_OPEN], tags, at_least_one: false, stop_after_first: !plan.parallel });
  }
  const tags = tools.map((tool) => argumentsTag(tool, callPrefix(tool.function.name), '}'));
  const format: Format = {
    type: 'sequence',
    elements: [
      { type: 'const_string', value: `${TOOL_CALL_OPEN}[` },
      // xgrammar holds nothing after a tags_with_separator: the answer ends with the last call, the list unclosed
      // (the parser reads it so).
      { type: 'tags_with_separator', tags, separator: ', ', at_least_one: true, stop_after_first: !plan.parallel },
    ],
  };
  return structuralTag(format);
}

export const phi4Mini: ToolFormat = {
  systemWithTools,
  assistantText,
  toolResults: (results: readonly ToolResult[]) => results.map((r) => r.content).join('\n\n'),
  parser: () => new JsonCallsParser(SPEC),
  toolCallFormat,
};
