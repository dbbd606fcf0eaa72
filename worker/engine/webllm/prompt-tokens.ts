// Counts a request's prompt tokens exactly as web-llm will prefill them: the chat template rendered the way
// web-llm's Conversation renders it (system prompt, role markers, separators, the reply header), each piece
// encoded by the loaded model's own tokenizer, plus each image's embedding tokens. This is what lets
// `context_length_exceeded` be answered before generation starts.
import type { ChatCompletionMessageParam, ChatOptions } from '@mlc-ai/web-llm';
import type { ImageSize } from '../common/images';

export type ConvTemplate = NonNullable<ChatOptions['conv_template']>;

/** What the adapter can see of a loaded model (wired to web-llm's pipeline in index.ts). */
export interface LoadedModelView {
  /** Tokens the model's tokenizer makes of `text`. */
  countTokens(text: string): number;
  /** The chat template in force: mlc-chat-config's conv_template with its conv_config applied. */
  template: ConvTemplate;
  /** The model's `model_type` (e.g. "qwen3", "phi3_v"). */
  modelType: string;
  /** Embedding tokens one image of this size takes, for vision models. */
  imageTokens?(size: ImageSize): number;
  /** Begin/end-of-image marker tokens around each image (0 for Phi-3.5-vision). */
  imageMarkerTokens: number;
}

const PLACEHOLDER = { user: '{user_message}', assistant: '{assistant_message}', tool: '{tool_message}' } as const;
const FUNCTION_PLACEHOLDER = '{function_string}';

type Piece = string | { image: string };

/** `sep ?? fallback` the way web-llm reads these optional separators ("" counts as set). */
function sep(value: string | undefined, fallback: string): string {
  return value !== undefined && value !== null ? value : fallback;
}

/** The prompt web-llm prefills for `messages`, as per-turn pieces (strings, and images by URL). */
export function renderPrompt(
  template: ConvTemplate,
  messages: readonly ChatCompletionMessageParam[],
  options: { emptyThinkBlock?: string; modelType: string },
): Piece[][] {
  const first = messages[0];
  const systemMessage = first?.role === 'system' ? first.content : template.system_message;
  const systemPrompt =
    systemMessage === '' && template.render_empty_system_message === false ? '' : template.system_template.replace('{system_message}', systemMessage);
  const turns: Piece[][] = systemPrompt !== '' ? [[systemPrompt]] : [];
  const rest = first?.role === 'system' ? messages.slice(1) : messages;
  const contentSep = sep(template.role_content_sep, ': ');
  rest.forEach((message, i) => {
    if (message.role === 'system') throw new Error('A system message after the first cannot be rendered.');
    const role = message.role === 'user' || message.role === 'assistant' || message.role === 'tool' ? message.role : 'user';
    const roleString = template.roles[role as keyof typeof template.roles];
    let text = '';
    const images: string[] = [];
    const content = message.content ?? '';
    if (typeof content === 'string') text = content;
    else {
      for (const part of content) {
        if (part.type === 'text') text = part.text;
        else if (part.type === 'image_url') images.push(part.image_url.url);
      }
    }
    let body = text;
    const roleTemplate = template.role_templates?.[role as keyof typeof template.roles];
    if (roleTemplate !== undefined) body = roleTemplate.replace(PLACEHOLDER[role], text).replace(FUNCTION_PLACEHOLDER, '');
    const prefix = template.add_role_after_system_message === false && systemPrompt !== '' && i === 0 ? '' : roleString + contentSep;
    const separator = template.seps[i % template.seps.length] ?? '';
    if (images.length === 0) {
      turns.push([prefix + body + separator]);
      return;
    }
    const turn: Piece[] = [prefix];
    for (const image of images) {
      turn.push({ image });
      if (options.modelType === 'phi3_v') turn.push('\n');
    }
    turn.push(body + separator);
    turns.push(turn);
  });
  const assistant = template.roles.assistant;
  turns.push([options.emptyThinkBlock !== undefined ? assistant + contentSep + options.emptyThinkBlock : assistant + sep(template.role_empty_sep, ': ')]);
  return turns;
}

/** Prompt tokens of `messages` for the loaded model; images are looked up by URL in `images`. */
export function countPromptTokens(
  view: LoadedModelView,
  messages: readonly ChatCompletionMessageParam[],
  images: ReadonlyMap<string, ImageSize>,
  emptyThinkBlock?: string,
): number {
  const turns = renderPrompt(view.template, messages, { modelType: view.modelType, ...(emptyThinkBlock !== undefined ? { emptyThinkBlock } : {}) });
  let total = view.template.system_prefix_token_ids?.length ?? 0;
  for (const turn of turns) {
    for (const piece of turn) {
      if (typeof piece === 'string') {
        if (piece !== '') total += view.countTokens(piece);
        continue;
      }
      const size = images.get(piece.image);
      if (!size || !view.imageTokens) throw new Error('An image was sent to a model that cannot count image tokens.');
      total += view.imageTokens(size) + view.imageMarkerTokens;
    }
  }
  return total;
}
