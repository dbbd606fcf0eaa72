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

export type OutputItem = OutputMessageItem | ReasoningItem | FunctionCallItem;
export type ConversationItem = InputMessageItem | OutputItem | FunctionCallOutputItem;

export function itemId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `${prefix}_${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}
