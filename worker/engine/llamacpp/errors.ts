// wllama's and llama.cpp's failures → the contract's errors.
import { ApiError } from '#shared/protocol/errors';

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'object' && err !== null && 'message' in err) return String((err as { message: unknown }).message);
  return String(err);
}

/** A failure while fetching or loading `what` (e.g. "svc-model-5.2-short (GGUF …)"). */
export function loadError(err: unknown, what: string): ApiError {
  if (err instanceof ApiError) return err;
  const message = messageOf(err);
  // wllama (3.8.1, still 3.13.0) surfaces a C++ exception (e.g. out of memory) this way.
  const native = /Invalid typed array length/.test(message) ? ' (llama.cpp aborted: usually out of memory for this model on this device)' : '';
  return new ApiError('model_load_failed', `Loading ${what} failed: ${message}${native}`);
}

/**
 * What is known of a failure besides the error: whether the request asked for logprobs, the text of the native
 * exception llama.cpp logged (wllama (3.8.1, still 3.13.0) itself surfaces only "Invalid typed array length"), and whether it
 * came before llama.cpp's first chunk (the prompt's progress, sent before any token is decoded).
 */
export interface FailureContext {
  logprobs?: boolean;
  native?: string | null;
  beforeFirstChunk?: boolean;
}

/** Native exceptions that say the device ran out of memory (never the request's fault). */
const OUT_OF_MEMORY = /bad_alloc|out of memory|failed to allocate|\bOOM\b/i;

/** A failure from llama.cpp during a chat completion. */
export function generationError(err: unknown, context: FailureContext = {}): ApiError {
  if (err instanceof ApiError) return err;
  const message = messageOf(err);
  const over = /request \((\d+) tokens\) exceeds the available context size \((\d+) tokens\)/.exec(message);
  if (over) {
    return new ApiError(
      'context_length_exceeded',
      `This model's maximum context length is ${over[2]} tokens. However, your messages resulted in ${over[1]} tokens. Please reduce the length of the messages.`,
      { param: 'messages' },
    );
  }
  if (/Invalid typed array length/.test(message)) {
    const native = context.native?.trim() || null;
    // Before the first chunk llama.cpp has only read the request, rendered the chat template and tokenized the
    // prompt: an exception there that is not a lack of memory is the request's (JSON it cannot read, a
    // template that raised an exception on these messages), so the caller hears it as a 400, with llama.cpp's words.
    if (native && context.beforeFirstChunk && !OUT_OF_MEMORY.test(native)) {
      return new ApiError('invalid_value', `llama.cpp could not make a prompt of these messages with the model's chat template: ${native}`, {
        param: 'messages',
      });
    }
    // wllama (3.8.1, still 3.13.0) writes llama.cpp's logprobs as JSON without replacing invalid UTF-8: a token that is one byte
    // of a multi-byte character (e.g. a lone continuation byte) makes that throw. The answer's text is safe
    // (llama.cpp gives replacement characters there); the engine stays usable.
    const cause = native ? `; llama.cpp said: ${native}` : '';
    const why = context.logprobs
      ? `a native exception: with logprobs, usually a token that is not valid UTF-8 on its own (a byte of a multi-byte character), which llama.cpp cannot write out as a logprob; ask again without logprobs. Otherwise out of memory${cause}`
      : native
        ? `a native exception: ${native}`
        : 'a native exception, often out of memory';
    return new ApiError('internal_error', `llama.cpp failed during generation (${why}): ${message}`);
  }
  return new ApiError('internal_error', `llama.cpp failed during generation: ${message}`);
}
