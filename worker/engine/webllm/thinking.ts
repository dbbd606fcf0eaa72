// Splits Qwen3's streamed output into thinking and answer: `<think>…</think>` becomes reasoning, the rest
// content. web-llm streams the raw text, tags included; with thinking switched off it still opens with an
// empty `<think>\n\n</think>\n\n` block, which this removes. Text is fed as it arrives; nothing that could be
// the start of a tag is released until it is known not to be one.

const OPEN = '<think>';
const CLOSE = '</think>';

type Phase = 'start' | 'thinking' | 'after' | 'content';

export interface Split {
  reasoning: string;
  content: string;
  /** True when this piece of text was part of the thinking block (its tags included). */
  thinking: boolean;
}

/** Length of the longest suffix of `text` that is a proper prefix of `tag`. */
function partialTagAtEnd(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--) {
    if (tag.startsWith(text.slice(text.length - n))) return n;
  }
  return 0;
}

export class ThinkSplitter {
  private phase: Phase = 'start';
  /** Text not yet released: a possible tag, or thinking whitespace that may turn out to be trailing. */
  private held = '';
  /** Whether any reasoning text has been released (leading whitespace of thinking is dropped). */
  private reasoningStarted = false;

  push(text: string): Split {
    const out: Split = { reasoning: '', content: '', thinking: this.phase === 'thinking' };
    this.held += text;
    for (;;) {
      if (this.phase === 'start') {
        const trimmed = this.held.trimStart();
        if (trimmed.startsWith(OPEN)) {
          this.held = trimmed.slice(OPEN.length);
          this.phase = 'thinking';
          out.thinking = true;
          continue;
        }
        if (trimmed.length === 0 || OPEN.startsWith(trimmed)) return out; // still undecided
        this.phase = 'content';
        continue;
      }
      if (this.phase === 'thinking') {
        out.thinking = true;
        const close = this.held.indexOf(CLOSE);
        if (close >= 0) {
          out.reasoning += this.releaseReasoning(this.held.slice(0, close), true);
          this.held = this.held.slice(close + CLOSE.length);
          this.phase = 'after';
          continue;
        }
        const keep = partialTagAtEnd(this.held, CLOSE);
        const ready = this.held.slice(0, this.held.length - keep);
        // Trailing whitespace waits: it is dropped if the block closes right after it.
        const body = ready.trimEnd();
        out.reasoning += this.releaseReasoning(body, false);
        this.held = ready.slice(body.length) + this.held.slice(this.held.length - keep);
        return out;
      }
      if (this.phase === 'after') {
        const trimmed = this.held.trimStart();
        if (trimmed.length === 0) {
          this.held = '';
          return out;
        }
        this.held = trimmed;
        this.phase = 'content';
        continue;
      }
      out.content += this.held;
      this.held = '';
      return out;
    }
  }

  /** Releases whatever is held once the stream has ended. */
  end(): Split {
    const out: Split = { reasoning: '', content: '', thinking: false };
    if (this.phase === 'start' || this.phase === 'content') out.content = this.held;
    else if (this.phase === 'thinking') out.reasoning = this.releaseReasoning(this.held.trimEnd(), true);
    this.held = '';
    return out;
  }

  private releaseReasoning(text: string, final: boolean): string {
    let body = text;
    if (!this.reasoningStarted) body = body.trimStart();
    if (final) body = body.trimEnd();
    if (body.length > 0) this.reasoningStarted = true;
    return body;
  }
}
