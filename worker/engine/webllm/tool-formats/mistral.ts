// Mistral's tool format (Mistral-7B-Instruct-v0.3's tokenizer and chat template): the tools as a JSON list between
// `[AVAILABLE_TOOLS]` and `[/AVAILABLE_TOOLS]`; the model answers `[TOOL_CALLS]` and a JSON list of
// `{"name": …, "arguments": {…}}`; a call in history is that list (each with the 9-character `id` the template
// wants); results are `[TOOL_RESULTS]{"content": …, "call_id": …}[/TOOL_RESULTS]`. web-llm's Mistral template
// knows none of these, so they are written into the turns' text (the markers are the tokenizer's own tokens).
import type { ResponseFormat as WebLlmResponseFormat } from '@mlc-ai/web-llm';
import type { FunctionTool, ToolCall } from '#shared/protocol/types';
import type { ToolPlan } from '../../common/plan';
import { argumentsTag, callable, pythonJson, structuralTag, type Format } from './grammar';
import { JsonCallsParser, type JsonCallsSpec } from './json-calls-parser';
import type { ToolFormat, ToolResult } from './types';

export const TOOL_CALLS = '[TOOL_CALLS]';

const SPEC: JsonCallsSpec = { regions: [{ marker: TOOL_CALLS, list: 'list' }], argumentKeys: ['arguments'] };

/** The 9 letters and digits Mistral's template wants as a call's id, from the id the client holds. */
export function mistralCallId(id: string): string {
  return id
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(-9)
    .padStart(9, '0');
}

function systemWithTools(system: string | null, tools: readonly FunctionTool[]): string {
  const list = tools.map(({ function: { name, description, parameters } }) => ({ type: 'function', function: { name, description, parameters } }));
  return (system ? `${system}\n\n` : '') + `[AVAILABLE_TOOLS]${pythonJson(list)}[/AVAILABLE_TOOLS]`;
}

const callPrefix = (name: string) => `{"name": ${JSON.stringify(name)}, "arguments": `;

function assistantText(content: string, calls: readonly ToolCall[]): string {
  const list = calls.map((call) => `${callPrefix(call.function.name)}${call.function.arguments || '{}'}, "id": ${JSON.stringify(mistralCallId(call.id))}}`);
  return `${content}${calls.length > 0 ? `${TOOL_CALLS}[${list.join(', ')}]` : ''}`;
}

function toolResults(results: readonly ToolResult[]): string {
  return results.map((r) => `[TOOL_RESULTS]${pythonJson({ content: r.content, call_id: mistralCallId(r.id) })}[/TOOL_RESULTS]`).join('');
}

/**
 * `auto`: a `[TOOL_CALLS]` trigger opens a list of one call (held to its tool's schema); with parallel calls on, the
 * model may open another. `required` / named: the answer is `[TOOL_CALLS]` and the list of calls, nothing else (left unclosed).
 */
function toolCallFormat(plan: ToolPlan): WebLlmResponseFormat {
  const tools = callable(plan);
  if (plan.mode === 'auto') {
    const tags = tools.map((tool) => argumentsTag(tool, `${TOOL_CALLS}[${callPrefix(tool.function.name)}`, '}]'));
    return structuralTag({ type: 'triggered_tags', triggers: [TOOL_CALLS], tags, at_least_one: false, stop_after_first: !plan.parallel });
  }
  const tags = tools.map((tool) => argumentsTag(tool, callPrefix(tool.function.name), '}'));
  const format: Format = {
    type: 'sequence',
    elements: [
      { type: 'const_string', value: `${TOOL_CALLS}[` },
      // xgrammar holds nothing after a tags_with_separator: the answer ends with the last call, the list unclosed
      // (the parser reads it so).
      { type: 'tags_with_separator', tags, separator: ', ', at_least_one: true, stop_after_first: !plan.parallel },
    ],
  };
  return structuralTag(format);
}

export const mistral: ToolFormat = {
  systemWithTools,
  assistantText,
  toolResults,
  parser: () => new JsonCallsParser(SPEC),
  toolCallFormat,
};
