// The Responses API's items as inpage stores, lists and replays them: OpenAI's ItemResource shapes for the kinds
// it handles, declared once for the request converter (responses.ts), the event writer (response-events.ts) and
// the store (stored-responses.ts).

export interface InputTextPart {
  type: 'input_text';
  text: string;
}
export interface InputImagePart {
  type: 'input_image';
  image_url: string;
  detail: 'auto' | 'low' | 'high';
}
export interface OutputTextPart {
  type: 'output_text';
  text: string;
  annotations: never[];
  logprobs: ResponseLogprob[];
}
export interface ReasoningTextPart {
  type: 'reasoning_text';
  text: string;
}
export interface ResponseLogprob {
  token: string;
  logprob: number;
  bytes: number[] | null;
  top_logprobs: { token: string; logprob: number; bytes: number[] | null }[];
}

export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

export interface InputMessageItem {
  id: string;
  type: 'message';
  role: 'user' | 'system' | 'developer';
  content: (InputTextPart | InputImagePart)[];
  status: ItemStatus;
}
export interface OutputMessageItem {
  id: string;
  type: 'message';
  role: 'assistant';
  content: OutputTextPart[];
  status: ItemStatus;
}
export interface ReasoningItem {
  id: string;
  type: 'reasoning';
  summary: never[];
  content: ReasoningTextPart[];
  status: ItemStatus;
}
export interface FunctionCallItem {
  id: string;
  type: 'function_call';
  call_id: string;
  name: string;
  arguments: string;
  status: ItemStatus;
}
export interface FunctionCallOutputItem {
  id: string;
  type: 'function_call_output';
  call_id: string;
  output: string;
  status: ItemStatus;
}

/** One tool of an MCP server, as `mcp_list_tools` lists it. */
export interface McpToolInfo {
  name: string;
  description: string | null;
  input_schema: Record<string, unknown>;
  annotations: Record<string, unknown> | null;
}
/** A listed tool as an item keeps it, from a request's looser form (what it leaves out as null or an open schema). */
export const mcpToolInfo = (tool: {
  name: string;
  description?: string | null;
  input_schema?: Record<string, unknown> | null;
  annotations?: Record<string, unknown> | null;
}): McpToolInfo => ({
  name: tool.name,
  description: tool.description ?? null,
  input_schema: tool.input_schema ?? { type: 'object' },
  annotations: tool.annotations ?? null,
});
/** The tools one MCP server offered (docs/responses.md#remote-mcp-tools); `previous_response_id` reuses them. */
export interface McpListToolsItem {
  id: string;
  type: 'mcp_list_tools';
  server_label: string;
  tools: McpToolInfo[];
  error: string | null;
}
/** One call of an MCP tool, run by inpage against the server: its output, or its error. */
export interface McpCallItem {
  id: string;
  type: 'mcp_call';
  server_label: string;
  name: string;
  arguments: string;
  output: string | null;
  error: string | null;
  status: 'in_progress' | 'calling' | 'completed' | 'failed' | 'incomplete';
  approval_request_id: string | null;
}
/** A call the model asked for that waits for the client's `mcp_approval_response`. */
export interface McpApprovalRequestItem {
  id: string;
  type: 'mcp_approval_request';
  server_label: string;
  name: string;
  arguments: string;
}
/** The client's answer to an `mcp_approval_request` (an input item). */
export interface McpApprovalResponseItem {
  id: string;
  type: 'mcp_approval_response';
  approval_request_id: string;
  approve: boolean;
  reason: string | null;
}

export type McpOutputItem = McpListToolsItem | McpCallItem | McpApprovalRequestItem;
export type OutputItem = OutputMessageItem | ReasoningItem | FunctionCallItem | McpOutputItem;
export type ConversationItem = InputMessageItem | OutputItem | FunctionCallOutputItem | McpApprovalResponseItem;

export function itemId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `${prefix}_${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}
