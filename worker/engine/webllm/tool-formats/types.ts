// What one tool-call format is, for the web-llm engine (one module per format in this folder; the registry is
// registry.ts): how the tools are shown to the model, how calls and results are written back in history, how its
// answer is read as it streams, and the grammar that holds it to the format when tools are offered.
import type { ResponseFormat as WebLlmResponseFormat } from '@mlc-ai/web-llm';
import type { FunctionTool, ToolCall } from '#shared/protocol/types';
import type { ToolPlan } from '../../common/plan';

export type ParsedPiece =
  { type: 'text'; text: string } | { type: 'call'; index: number; name: string } | { type: 'arguments'; index: number; arguments: string };

/** Reads an answer as it streams, in chunks cut anywhere: text, and tool calls (their start, then their arguments). */
export interface ToolCallStream {
  push(chunk: string): ParsedPiece[];
  /** The stream ended: what is held is released as what it is. */
  end(): ParsedPiece[];
}

/** A tool result as the history carries it. */
export interface ToolResult {
  /** The id of the call it answers (`tool_call_id`). */
  id: string;
  content: string;
}

export interface ToolFormat {
  /** The one system turn when tools are offered: the client's system text (null: none), then the tools. */
  systemWithTools(system: string | null, tools: readonly FunctionTool[]): string;
  /** An assistant turn that made calls: its content, then its calls, as the model writes them. */
  assistantText(content: string, calls: readonly ToolCall[]): string;
  /** Consecutive tool results as the one user turn they become. */
  toolResults(results: readonly ToolResult[]): string;
  /** A new parser of one answer. */
  parser(): ToolCallStream;
  /**
   * web-llm's response_format (xgrammar's structural tag) when tools are offered: `auto`, a call's arguments held
   * to its tool's schema once the model begins one; `required` / named, the answer is calls only.
   */
  toolCallFormat(plan: ToolPlan, thinking: boolean): WebLlmResponseFormat;
}
