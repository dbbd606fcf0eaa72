// POST /v1/responses, the answer side: engine events → the `response` object and the typed stream events
// (OpenAI's ResponseStreamEvent: `event: <type>` + `data: <json>`, `sequence_number` from 0, no [DONE]).
// One builder serves both modes: JSON answers are its final snapshot.
import type { EngineEvent } from '#shared/wire/engine-port';
import type { ApiError } from '#shared/protocol/errors';
import type { TokenLogprob, Usage } from '#shared/protocol/types';
import type { FunctionTool, ResponsesRequest, TextFormat } from './request';
import type {
  FunctionCallItem,
  McpApprovalRequestItem,
  McpCallItem,
  McpListToolsItem,
  OutputItem,
  OutputMessageItem,
  ReasoningItem,
  ResponseLogprob,
} from './items';
import { itemId } from './items';
import { echoMcpTool } from './mcp';
import { unixSeconds } from '#shared/protocol/completion';

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export interface ResponseObject {
  id: string;
  object: 'response';
  created_at: number;
  status: ResponseStatus;
  completed_at?: number | null;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: 'max_output_tokens' } | null;
  instructions: string | null;
  max_output_tokens: number | null;
  model: string;
  output: OutputItem[];
  parallel_tool_calls: boolean;
  previous_response_id: string | null;
  reasoning: { effort: string | null; summary: string | null };
  store: boolean;
  temperature: number | null;
  text: { format: TextFormat };
  tool_choice: NonNullable<ResponsesRequest['tool_choice']>;
  /** Function tools as given; MCP tools without their secrets (mcp.ts, echoMcpTool). */
  tools: ((FunctionTool & { description: string | null; parameters: Record<string, unknown> | null; strict: boolean | null }) | Record<string, unknown>)[];
  top_p: number | null;
  truncation: 'disabled';
  metadata: Record<string, string>;
  usage?: ResponseUsage;
  user?: string;
}

/** One stream event: its type and its body (which repeats the type and carries `sequence_number`). */
export interface StreamEvent {
  type: string;
  data: Record<string, unknown> & { type: string; sequence_number: number };
}

export function responseId(): string {
  return itemId('resp');
}

/** The `response` object for a request before anything is generated. */
export function initialResponse(request: ResponsesRequest, id: string = responseId()): ResponseObject {
  const response: ResponseObject = {
    id,
    object: 'response',
    created_at: unixSeconds(),
    status: 'in_progress',
    error: null,
    incomplete_details: null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    model: request.model,
    output: [],
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: request.previous_response_id ?? null,
    reasoning: { effort: request.reasoning?.effort ?? null, summary: null },
    store: request.store ?? true,
    temperature: request.temperature ?? null,
    text: { format: request.text?.format ?? { type: 'text' } },
    tool_choice: request.tool_choice ?? 'auto',
    tools: (request.tools ?? []).map((t) =>
      t.type === 'mcp' ? echoMcpTool(t) : { ...t, description: t.description ?? null, parameters: t.parameters ?? null, strict: t.strict ?? null },
    ),
    top_p: request.top_p ?? null,
    truncation: 'disabled',
    metadata: request.metadata ?? {},
  };
  if (request.user !== undefined) response.user = request.user;
  return response;
}

function toResponseLogprobs(logprobs: TokenLogprob[] | null | undefined): ResponseLogprob[] {
  return (logprobs ?? []).map((l) => ({ token: l.token, logprob: l.logprob, bytes: l.bytes, top_logprobs: l.top_logprobs }));
}

export function toResponseUsage(usage: Usage): ResponseUsage {
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: usage.prompt_tokens_details.cached_tokens, cache_write_tokens: 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details.reasoning_tokens },
    total_tokens: usage.total_tokens,
  };
}

const clone = <T>(value: T): T => structuredClone(value);

/** A call of an MCP tool the model made in a turn: the function name it called, its arguments. */
export interface PendingMcpCall {
  name: string;
  arguments: string;
}

/** Two turns' usage as one (an MCP tool loop's answer counts every turn, as OpenAI's does). */
function addUsage(a: Usage, b: Usage): Usage {
  return {
    ...b,
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
    prompt_tokens_details: { ...b.prompt_tokens_details, cached_tokens: a.prompt_tokens_details.cached_tokens + b.prompt_tokens_details.cached_tokens },
    completion_tokens_details: {
      ...b.completion_tokens_details,
      reasoning_tokens: a.completion_tokens_details.reasoning_tokens + b.completion_tokens_details.reasoning_tokens,
    },
  };
}

/**
 * Feeds engine events in, gets stream events out; `response` is the snapshot at every point. Reasoning comes
 * as a `reasoning` item with `reasoning_text` content, the answer as a `message` item with one `output_text`.
 */
export class ResponseBuilder {
  private sequence = 0;
  private open: { item: ReasoningItem | OutputMessageItem; index: number } | null = null;
  /** Function calls still taking arguments, by the engine's call index. */
  private readonly calls = new Map<number, { item: FunctionCallItem; index: number }>();
  /** Calls of MCP tools (by the engine's call index): gathered, and run by the route once the turn is over (mcp.ts). */
  private readonly mcpCalls = new Map<number, PendingMcpCall>();
  /** Whether this turn's output ended with function calls for the client to run. */
  private functionCalls = false;
  private logprobs: boolean;
  private readonly isMcp: (name: string) => boolean;
  /** The usage of the engine turns so far (an MCP tool loop runs several). */
  private usage: Usage | null = null;

  constructor(
    readonly response: ResponseObject,
    options: { logprobs?: boolean; isMcp?: (name: string) => boolean } = {},
  ) {
    this.logprobs = options.logprobs === true;
    this.isMcp = options.isMcp ?? (() => false);
  }

  /** An output item added whole (MCP listings, approval requests): its `added` and `done`, with `between` in between. */
  private whole(item: OutputItem, between: (where: { item_id: string; output_index: number }) => StreamEvent[] = () => []): StreamEvent[] {
    const index = this.response.output.length;
    this.response.output.push(item);
    const where = { item_id: item.id, output_index: index };
    return [
      this.emit('response.output_item.added', { output_index: index, item: clone(item) }),
      ...between(where),
      this.emit('response.output_item.done', { output_index: index, item: clone(item) }),
    ];
  }

  /** A server's tools, listed for this response (`mcp_list_tools`). */
  listedTools(item: McpListToolsItem): StreamEvent[] {
    return this.whole(item, (where) => [
      this.emit('response.mcp_list_tools.in_progress', where),
      this.emit(item.error === null ? 'response.mcp_list_tools.completed' : 'response.mcp_list_tools.failed', where),
    ]);
  }

  /** A call that waits for the client's approval; the response ends after it. */
  approvalRequest(item: McpApprovalRequestItem): StreamEvent[] {
    return this.whole(item);
  }

  /** An MCP call about to run: added (`in_progress`, its arguments given at once), then `response.mcp_call.in_progress`. */
  callStarted(item: McpCallItem): StreamEvent[] {
    const index = this.response.output.length;
    this.response.output.push(item);
    const where = { item_id: item.id, output_index: index };
    return [
      this.emit('response.output_item.added', { output_index: index, item: { ...clone(item), arguments: '' } }),
      this.emit('response.mcp_call_arguments.delta', { ...where, delta: item.arguments }),
      this.emit('response.mcp_call_arguments.done', { ...where, arguments: item.arguments }),
      this.emit('response.mcp_call.in_progress', where),
    ];
  }

  /** An MCP call that has run: `response.mcp_call.completed` or `.failed`, then the item done. */
  callEnded(item: McpCallItem): StreamEvent[] {
    const index = this.response.output.indexOf(item);
    const where = { item_id: item.id, output_index: index };
    return [
      this.emit(item.status === 'completed' ? 'response.mcp_call.completed' : 'response.mcp_call.failed', where),
      this.emit('response.output_item.done', { output_index: index, item: clone(item) }),
    ];
  }

  /**
   * The MCP calls of the turn that just finished (taken: the route runs them), and whether the turn also called
   * functions for the client. Empty when the turn did not end in MCP calls; the response is then complete.
   */
  takeMcpCalls(): { calls: PendingMcpCall[]; functionCalls: boolean } {
    const calls = [...this.mcpCalls.values()];
    this.mcpCalls.clear();
    return { calls, functionCalls: this.functionCalls };
  }

  /** Ends a response whose last turn called MCP tools: completed, with every turn's usage. */
  complete(): void {
    this.response.status = 'completed';
    this.response.completed_at = unixSeconds();
  }

  private emit(type: string, fields: Record<string, unknown>): StreamEvent {
    return { type, data: { type, ...fields, sequence_number: this.sequence++ } };
  }

  /** `response.created` and `response.in_progress`. */
  start(): StreamEvent[] {
    return [this.emit('response.created', { response: clone(this.response) }), this.emit('response.in_progress', { response: clone(this.response) })];
  }

  private openItem(item: ReasoningItem | OutputMessageItem): StreamEvent[] {
    const index = this.response.output.length;
    this.response.output.push(item);
    this.open = { item, index };
    const part = item.type === 'reasoning' ? { type: 'reasoning_text', text: '' } : { type: 'output_text', text: '', annotations: [], logprobs: [] };
    const added = this.emit('response.output_item.added', { output_index: index, item: { ...clone(item), content: [] } });
    const partAdded = this.emit('response.content_part.added', { item_id: item.id, output_index: index, content_index: 0, part });
    return [added, partAdded];
  }

  private closeItem(status: 'completed' | 'incomplete'): StreamEvent[] {
    const open = this.open;
    if (!open) return [];
    this.open = null;
    const { item, index } = open;
    item.status = status;
    const part = item.content[0]!;
    const where = { item_id: item.id, output_index: index, content_index: 0 };
    const done =
      item.type === 'reasoning'
        ? this.emit('response.reasoning_text.done', { ...where, text: part.text })
        : this.emit('response.output_text.done', { ...where, text: part.text, logprobs: (part as OutputMessageItem['content'][number]).logprobs });
    return [
      done,
      this.emit('response.content_part.done', { ...where, part: clone(part) }),
      this.emit('response.output_item.done', { output_index: index, item: clone(item) }),
    ];
  }

  /** A function call opens with `arguments: ""`; its argument fragments follow as deltas. */
  private openCall(call: number, callId: string, name: string): StreamEvent[] {
    const out = this.closeItem('completed');
    const item: FunctionCallItem = { id: itemId('fc'), type: 'function_call', call_id: callId, name, arguments: '', status: 'in_progress' };
    const index = this.response.output.length;
    this.response.output.push(item);
    this.calls.set(call, { item, index });
    out.push(this.emit('response.output_item.added', { output_index: index, item: clone(item) }));
    return out;
  }

  private closeCalls(status: 'completed' | 'incomplete'): StreamEvent[] {
    const out: StreamEvent[] = [];
    for (const { item, index } of this.calls.values()) {
      item.status = status;
      out.push(this.emit('response.function_call_arguments.done', { item_id: item.id, name: item.name, output_index: index, arguments: item.arguments }));
      out.push(this.emit('response.output_item.done', { output_index: index, item: clone(item) }));
    }
    this.calls.clear();
    return out;
  }

  /** The stream events for one engine event. */
  next(event: EngineEvent): StreamEvent[] {
    if (event.type === 'finish') return this.finish(event.finish_reason, event.usage);
    if (event.type === 'tool_call') {
      if (this.isMcp(event.name)) {
        this.mcpCalls.set(event.index, { name: event.name, arguments: '' });
        return this.closeItem('completed');
      }
      this.functionCalls = true;
      return this.openCall(event.index, event.id, event.name);
    }
    if (event.type === 'tool_arguments') {
      const mcp = this.mcpCalls.get(event.index);
      if (mcp) {
        mcp.arguments += event.arguments;
        return [];
      }
      const call = this.calls.get(event.index);
      if (!call) throw new Error(`Arguments for tool call ${event.index}, which the engine never opened.`);
      call.item.arguments += event.arguments;
      return [this.emit('response.function_call_arguments.delta', { item_id: call.item.id, output_index: call.index, delta: event.arguments })];
    }
    if (event.type === 'embedding') return []; // never part of a response
    const out: StreamEvent[] = [];
    if (event.reasoning) {
      if (this.open?.item.type !== 'reasoning') {
        out.push(...this.closeItem('completed'));
        out.push(
          ...this.openItem({ id: itemId('rs'), type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: '' }], status: 'in_progress' }),
        );
      }
      const { item, index } = this.open!;
      item.content[0]!.text += event.reasoning;
      out.push(this.emit('response.reasoning_text.delta', { item_id: item.id, output_index: index, content_index: 0, delta: event.reasoning }));
    }
    if (event.content) {
      out.push(...this.ensureMessage());
      const { item, index } = this.open!;
      const part = (item as OutputMessageItem).content[0]!;
      part.text += event.content;
      const logprobs = this.logprobs ? toResponseLogprobs(event.logprobs) : [];
      part.logprobs.push(...logprobs);
      out.push(this.emit('response.output_text.delta', { item_id: item.id, output_index: index, content_index: 0, delta: event.content, logprobs }));
    }
    return out;
  }

  private ensureMessage(): StreamEvent[] {
    if (this.open?.item.type === 'message') return [];
    return [
      ...this.closeItem('completed'),
      ...this.openItem({
        id: itemId('msg'),
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: '', annotations: [], logprobs: [] }],
        status: 'in_progress',
      }),
    ];
  }

  private finish(reason: string, usage: Usage): StreamEvent[] {
    const cut = reason === 'length';
    if (cut) this.mcpCalls.clear(); // a call cut short is not run
    const out: StreamEvent[] = [];
    // A reply with no output at all still answers with an (empty) message, as chat answers content "".
    if (this.response.output.length === 0 && !cut && this.mcpCalls.size === 0) out.push(...this.ensureMessage());
    out.push(...this.closeItem(cut ? 'incomplete' : 'completed'));
    out.push(...this.closeCalls(cut ? 'incomplete' : 'completed'));
    this.usage = this.usage ? addUsage(this.usage, usage) : usage;
    this.response.usage = toResponseUsage(this.usage);
    // Calls of MCP tools: the route runs them and the next turn follows (or `complete()` ends the response).
    if (this.mcpCalls.size > 0) return out;
    if (cut) {
      this.response.status = 'incomplete';
      this.response.incomplete_details = { reason: 'max_output_tokens' };
      this.response.completed_at = null;
    } else {
      this.response.status = 'completed';
      this.response.completed_at = unixSeconds();
    }
    return out;
  }

  /** The last event: `response.completed` or `response.incomplete` with the final snapshot. */
  end(): StreamEvent[] {
    const type = this.response.status === 'incomplete' ? 'response.incomplete' : 'response.completed';
    return [this.emit(type, { response: clone(this.response) })];
  }

  /** A failure after the stream began: `error`, then `response.failed`. */
  fail(err: ApiError): StreamEvent[] {
    const out = [...this.closeItem('incomplete'), ...this.closeCalls('incomplete')];
    this.response.status = 'failed';
    this.response.completed_at = null;
    this.response.error = { code: 'server_error', message: err.message };
    out.push(this.emit('error', { code: err.code, message: err.message, param: err.param }));
    out.push(this.emit('response.failed', { response: clone(this.response) }));
    return out;
  }
}
