// Qwen3's tool format, as its chat template renders it (the four svc-model-5.2 variants; Qwen2.5 and Hermes 2 Pro /
// Hermes 3 write the same blocks): the tools go into the system turn inside <tools></tools> with the instruction to
// answer in <tool_call> blocks; an assistant's calls are <tool_call> blocks after its text; tool results are
// <tool_response> blocks in one user turn. web-llm 0.2.86 has no tool support for Qwen3 (only Hermes models), so
// inpage renders these as plain messages, and constrains the answer with xgrammar structural tags (web-llm's
// `response_format: structural_tag`).
import type { ResponseFormat as WebLlmResponseFormat } from '@mlc-ai/web-llm';
import type { FunctionTool, ToolCall } from '#shared/protocol/types';
import type { ToolPlan } from '../../common/plan';
import { afterThinking, argumentsTag, callable, pythonJson, structuralTag, type Format } from './grammar';
import { TOOL_CALL_CLOSE, TOOL_CALL_OPEN, ToolCallParser } from './qwen3-parser';
import type { ToolFormat, ToolResult } from './types';

/** A tool as the template lists it: `{"type": "function", "function": {name, description, parameters}}`. */
function toolSignature(tool: FunctionTool): string {
  const { name, description, parameters } = tool.function;
  return pythonJson({ type: 'function', function: { name, description, parameters } });
}

/** The system turn with tools offered: the client's system text, then the tools block of Qwen3's template. */
export function systemWithTools(system: string | null, tools: readonly FunctionTool[]): string {
  return (
    (system ? `${system}\n\n` : '') +
    '# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' +
    'You are provided with function signatures within <tools></tools> XML tags:\n<tools>' +
    tools.map((tool) => `\n${toolSignature(tool)}`).join('') +
    '\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n' +
    '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
  );
}

/** What opens a call of `name`, up to its arguments. */
function callPrefix(name: string): string {
  return `${TOOL_CALL_OPEN}\n{"name": ${JSON.stringify(name)}, "arguments": `;
}
const CALL_SUFFIX = `}\n${TOOL_CALL_CLOSE}`;

/** One call as the template writes it in an assistant turn (arguments as the client sent them). */
export function renderCall(name: string, args: string): string {
  return `${callPrefix(name)}${args}${CALL_SUFFIX}`;
}

/** An assistant turn's text: its content, then its calls, each on a line of its own. */
export function assistantText(content: string, calls: readonly ToolCall[]): string {
  const blocks = calls.map((call) => renderCall(call.function.name, call.function.arguments || '{}'));
  return [content, ...blocks].filter((part, i) => i > 0 || part.length > 0).join('\n');
}

/** Consecutive tool results as the one user turn the template makes of them. */
export function toolResponses(contents: readonly string[]): string {
  return contents.map((content) => `<tool_response>\n${content}\n</tool_response>`).join('\n');
}

const callTag = (tool: FunctionTool): Format => argumentsTag(tool, callPrefix(tool.function.name), CALL_SUFFIX);

/**
 * The structural tag that constrains an answer when tools are offered. `auto`: free text, and whatever follows
 * a `<tool_call>` trigger is a call of one of the tools with arguments matching its schema. `required` /
 * named: the answer (after thinking) is one or more calls (one when parallel calls are off), nothing else.
 */
export function toolCallFormat(plan: ToolPlan, thinking: boolean): WebLlmResponseFormat {
  const tags = callable(plan).map(callTag);
  const format: Format =
    plan.mode === 'auto'
      ? { type: 'triggered_tags', triggers: [TOOL_CALL_OPEN], tags, at_least_one: false, stop_after_first: !plan.parallel }
      : afterThinking(thinking, { type: 'tags_with_separator', tags, separator: '\n', at_least_one: true, stop_after_first: !plan.parallel });
  return structuralTag(format);
}

export const qwen3: ToolFormat = {
  systemWithTools,
  assistantText,
  toolResults: (results: readonly ToolResult[]) => toolResponses(results.map((r) => r.content)),
  parser: () => new ToolCallParser(),
  toolCallFormat,
};
