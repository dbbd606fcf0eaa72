// The Playground's conversations, kept in this origin's IndexedDB (database "inpage-conversations"), one list
// per workspace (organisation id). Each holds its model, system prompt, parameters, turns and unsent draft.
import type { DBSchema } from 'idb';
import { connection } from '#shared/idb-connection';
import type { FinishReason } from '#shared/protocol/types';
import type { ModelId } from '#shared/variants';

export interface TurnStats {
  /** Completion tokens (thinking included): from `usage`, or counted deltas when the answer was stopped. */
  tokens: number;
  /** Of those, thinking tokens (from `usage.completion_tokens_details`); null when not known. */
  reasoningTokens: number | null;
  exact: boolean;
  tokensPerSecond: number | null;
  /** Milliseconds from sending to the first token. */
  firstTokenMs: number | null;
  finish: FinishReason | null;
  /** Where it ran: `x-inpage-served-by` (`local`, or `upstream; host=…`); absent in chats kept before hybrid. */
  servedBy?: string | null;
  /** The request's prompt tokens (`usage.prompt_tokens`); absent when the answer gave no usage. */
  promptTokens?: number | null;
  /** The cut in force when it was asked (the id of the note that dropped older turns), or null. */
  cut?: string | null;
}

export interface Turn {
  id: string;
  /** `note`: something the Playground says in the chat (never sent to /v1); `tool`: a result the person typed. */
  role: 'user' | 'assistant' | 'note' | 'tool';
  text: string;
  /** A note where the person chose to leave the older turns out: the turns before it are no longer sent. */
  cut?: boolean;
  /** A data: URL the person attached (user turns, svc-vision), and the file's name. */
  image?: string;
  imageName?: string;
  /** Text documents the person attached (user turns, any model), sent before the text (documents.ts). */
  documents?: AttachedDocument[];
  reasoning?: string;
  /** How long the model thought, in milliseconds, once its answer began. */
  thoughtMs?: number;
  model?: string;
  /** The functions an assistant turn called (`arguments`: JSON text as the model wrote it). */
  toolCalls?: { id: string; name: string; arguments: string }[];
  /**
   * An answer through /v1/responses (the chat has MCP servers on): its MCP items as they came (listings, calls,
   * approval requests, each answered or not), and the id of the response it ended with (what an approval continues).
   */
  mcp?: McpItem[];
  responseId?: string;
  /** A tool turn: the call it answers, and the function's name. */
  toolCallId?: string;
  name?: string;
  /**
   * `failed`: the answer broke off after it began (`error` says why); what came is kept. `interrupted`: the page
   * was reloaded or closed while it streamed; what had arrived is kept.
   */
  status?: 'streaming' | 'done' | 'stopped' | 'failed' | 'interrupted';
  error?: string;
  stats?: TurnStats;
  /**
   * An answer asked for again (Regenerate): every version of it, the one shown (the fields above) at `version`.
   * Absent for an answer given once.
   */
  versions?: AnswerVersion[];
  version?: number;
  /**
   * A message of the person edited and sent again: every version of it, each with the turns that followed it
   * (a branch); the one shown (this turn and the chat's later turns) at `branch`, whose entry's `after` is kept
   * empty while it is on screen (the chat's turns are its turns). Absent for a message sent once.
   */
  branches?: UserBranch[];
  branch?: number;
}

/** An MCP output item of /v1/responses as the chat keeps it (docs/responses.md#remote-mcp-tools). */
export interface McpItem {
  id: string;
  type: 'mcp_list_tools' | 'mcp_call' | 'mcp_approval_request';
  server_label: string;
  /** A listing: the tools' names; or its error. */
  tools?: string[];
  name?: string;
  arguments?: string;
  output?: string | null;
  error?: string | null;
  status?: string;
  /** An approval request: the person's answer, once sent. */
  answer?: 'approved' | 'denied';
  /**
   * An approval request: the person's choice while another request of the same answer waits for theirs (the
   * answers go together, one request with an `mcp_approval_response` each).
   */
  choice?: 'approved' | 'denied';
}

/** A text document attached to a message: the file's name and its text. */
export interface AttachedDocument {
  name: string;
  text: string;
}

/** One version of a message of the person, and the turns that followed it in that branch. */
export interface UserBranch {
  text: string;
  image?: string;
  imageName?: string;
  documents?: AttachedDocument[];
  after: Turn[];
}

/** One version of an answer. */
export type AnswerVersion = Pick<Turn, 'text' | 'reasoning' | 'thoughtMs' | 'model' | 'status' | 'error' | 'stats' | 'toolCalls' | 'mcp' | 'responseId'>;

/** The request parameters a person can set; null means "not sent" (the service's default). */
export interface Params {
  temperature: number | null;
  top_p: number | null;
  max_tokens: number | null;
  /** For thinking variants: false sends `reasoning_effort: "none"`. */
  thinking: boolean;
  /** `response_format: {type: "json_object"}`. */
  json: boolean;
  /**
   * `response_format: {type: "json_schema"}` with this schema (JSON text) when not null; wins over `json`.
   * Absent in chats saved before it existed, as are the fields after it: their defaults apply.
   */
  schema?: string | null;
  seed?: number | null;
  presence_penalty?: number | null;
  frequency_penalty?: number | null;
  /** Stop sequences, one per line (up to 4 are sent). */
  stop?: string;
  /** Functions the model may call: a JSON array of `{name, description, parameters}` (JSON schema); empty: none. */
  tools?: string;
}

export const DEFAULT_PARAMS: Required<Params> = {
  temperature: null,
  top_p: null,
  max_tokens: null,
  thinking: true,
  json: false,
  schema: null,
  seed: null,
  presence_penalty: null,
  frequency_penalty: null,
  stop: '',
  tools: '',
};

export interface Conversation {
  id: string;
  orgId: string;
  title: string;
  /** Whether the person named it (else the first message names it). */
  named: boolean;
  createdAt: number;
  updatedAt: number;
  model: ModelId;
  /** Whether the person picked the model (else the Playground may move an empty chat to one this device runs). */
  modelChosen?: boolean;
  system: string;
  params: Params;
  /** The preset the chat started from (the one applied last when it was made), if it did not start from the defaults. */
  startedFrom?: string;
  turns: Turn[];
  draft: string;
  /** The image attached to the draft (svc-vision), back with the text after a failed send. */
  draftImage?: { url: string; name: string } | null;
  /** The MCP servers turned on for this chat (ids of mcp-servers.ts; their URL and token are kept there). */
  mcp?: string[];
  /** The documents attached to the draft (any model), sent with it; back with the text after a failed send. */
  draftDocuments?: AttachedDocument[];
  /** Whether the chat already said that earlier images are left out for a text model. */
  imagesNoted: boolean;
}

interface ConversationsDB extends DBSchema {
  conversations: { key: string; value: Conversation; indexes: { orgId: string } };
}

const CONVERSATIONS_DB = 'inpage-conversations';

const open = connection<ConversationsDB>(CONVERSATIONS_DB, 1, (db) => {
  const store = db.createObjectStore('conversations', { keyPath: 'id' });
  store.createIndex('orgId', 'orgId');
}).get;

/** The workspace's conversations, most recently changed first. */
export async function listConversations(orgId: string): Promise<Conversation[]> {
  const db = await open();
  const all = await db.getAllFromIndex('conversations', 'orgId', orgId);
  return all.sort((a, b) => b.updatedAt - a.updatedAt);
}

export async function putConversation(conversation: Conversation): Promise<void> {
  const db = await open();
  await db.put('conversations', conversation);
}

export async function deleteConversation(id: string): Promise<void> {
  const db = await open();
  await db.delete('conversations', id);
}
