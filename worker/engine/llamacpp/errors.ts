// wllama's and llama.cpp's failures → the contract's errors.
import { ApiError } from '../../../src/protocol/errors';

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'object' && err !== null && 'message' in err) return String((err as { message: unknown }).message);
  return String(err);
}

/** A failure while fetching or loading `what` (e.g. "svc-model-5.2-short (GGUF …)"). */
export function loadError(err: unknown, what: string): ApiError {
  if (err instanceof ApiError) return err;
  const message = messageOf(err);
  // wllama 3.8.1 surfaces a C++ exception (e.g. out of memory) this way.
  const native = /Invalid typed array length/.test(message) ? ' (llama.cpp aborted: usually out of memory for this model on this device)' : '';
  return new ApiError('model_load_failed', `Loading ${what} failed: ${message}${native}`);
}

/** A failure from llama.cpp during a chat completion (`logprobs`: the request asked for them). */
export function generationError(err: unknown, request: { logprobs?: boolean } = {}): ApiError {
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
    // wllama 3.8.1 writes llama.cpp's logprobs as JSON without replacing invalid UTF-8: a token that is one byte
    // of a multi-byte character (e.g. a lone continuation byte) makes that throw. The answer's text is safe
    // (llama.cpp gives replacement characters there); the engine stays usable.
    const why = request.logprobs
      ? 'a native exception: with logprobs, usually a token that is not valid UTF-8 on its own (a byte of a multi-byte character), which llama.cpp cannot write out as a logprob; ask again without logprobs. Otherwise out of memory'
      : 'a native exception, often out of memory';
    return new ApiError('internal_error', `llama.cpp failed during generation (${why}): ${message}`);
  }
  return new ApiError('internal_error', `llama.cpp failed during generation: ${message}`);
}
