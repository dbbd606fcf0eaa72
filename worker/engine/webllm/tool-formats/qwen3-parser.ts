// Reads Qwen3's answer as it streams and splits it into text and tool calls: each
// `<tool_call>\n{"name": "…", "arguments": {…}}\n</tool_call>` block becomes a call (its start, then its
// arguments in fragments as they arrive); the text around the blocks stays text. Text that may be the start of
// a block is held back until it is known not to be one, so no markup ever reaches the client. Whitespace that
// only separates text from a block (or blocks from each other) is the template's, not the answer's: it is
// dropped.
import { CALL_HEAD } from '../../common/tool-call-head';
import type { ParsedPiece, ToolCallStream } from './types';

export type { ParsedPiece } from './types';

export const TOOL_CALL_OPEN = '<tool_call>';
export const TOOL_CALL_CLOSE = '</tool_call>';

/** Length of the longest end of `text` that is a proper prefix of `tag`. */
export function partialAtEnd(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--) {
    if (tag.startsWith(text.slice(text.length - n))) return n;
  }
  return 0;
}

// The head of a block up to its arguments, as Qwen3 writes it (whitespace allowed between the JSON tokens).
const HEAD = CALL_HEAD;

/** Where the end of a block may begin in `text`: a last `}` followed only by whitespace and part of </tool_call>. */
function possibleEnd(text: string): number {
  const brace = text.lastIndexOf('}');
  if (brace < 0) return text.length;
  const rest = text.slice(brace + 1).trimStart();
  return TOOL_CALL_CLOSE.startsWith(rest) ? brace : text.length;
}

type State = 'text' | 'head' | 'arguments';

export class ToolCallParser implements ToolCallStream {
  private state: State = 'text';
  private held = '';
  /** Calls completed so far. */
  private calls = 0;
  /** A block has just closed: whitespace after it is dropped. */
  private afterBlock = false;
  /** Whitespace of text waiting to see whether a block follows it. */
  private pendingSpace = '';

  push(chunk: string): ParsedPiece[] {
    const out: ParsedPiece[] = [];
    this.held += chunk;
    for (;;) {
      if (this.state === 'text') {
        const open = this.held.indexOf(TOOL_CALL_OPEN);
        if (open >= 0) {
          this.text(out, this.held.slice(0, open), true);
          this.held = this.held.slice(open + TOOL_CALL_OPEN.length);
          this.state = 'head';
          continue;
        }
        const keep = partialAtEnd(this.held, TOOL_CALL_OPEN);
        this.text(out, this.held.slice(0, this.held.length - keep), false);
        this.held = this.held.slice(this.held.length - keep);
        return out;
      }
      if (this.state === 'head') {
        const head = HEAD.exec(this.held);
        if (head) {
          out.push({ type: 'call', index: this.calls, name: JSON.parse(head[1]!) as string });
          this.held = this.held.slice(head[0].length);
          this.state = 'arguments';
          continue;
        }
        // Still coming, or not the shape Qwen3 writes: then the whole block is read and made sense of.
        const close = this.held.indexOf(TOOL_CALL_CLOSE);
        if (close < 0) return out;
        this.whole(out, this.held.slice(0, close));
        this.afterBlock = true;
        this.held = this.held.slice(close + TOOL_CALL_CLOSE.length);
        this.state = 'text';
        continue;
      }
      // arguments: everything up to the `}` that closes the block's object before </tool_call>.
      const end = /\}\s*<\/tool_call>/.exec(this.held);
      if (end) {
        this.fragment(out, this.held.slice(0, end.index));
        this.held = this.held.slice(end.index + end[0].length);
        this.calls++;
        this.afterBlock = true;
        this.state = 'text';
        continue;
      }
      // Hold back what may be that end: a `}`, whitespace, and the start of </tool_call>.
      const cut = possibleEnd(this.held);
      this.fragment(out, this.held.slice(0, cut));
      this.held = this.held.slice(cut);
      return out;
    }
  }

  /** The stream ended: what is held is released as what it is. */
  end(): ParsedPiece[] {
    const out: ParsedPiece[] = [];
    if (this.state === 'text') this.text(out, this.held, false, true);
    else if (this.state === 'arguments') this.fragment(out, this.held.slice(0, possibleEnd(this.held))); // cut short (length)
    // A block cut short before its name is known carries nothing usable.
    this.held = '';
    return out;
  }

  /** How many calls have begun. */
  get count(): number {
    return this.calls + (this.state === 'arguments' ? 1 : 0);
  }

  private text(out: ParsedPiece[], text: string, beforeBlock: boolean, final = false): void {
    let body = this.pendingSpace + text;
    this.pendingSpace = '';
    // Whitespace right after a block only separates it from what follows.
    if (this.afterBlock) {
      body = body.trimStart();
      if (body.length > 0) this.afterBlock = false;
    }
    if (beforeBlock) body = body.trimEnd();
    else if (!final) {
      // Trailing whitespace waits: it is dropped if a block follows it.
      const trimmed = body.trimEnd();
      this.pendingSpace = body.slice(trimmed.length);
      body = trimmed;
    }
    if (body.length > 0) out.push({ type: 'text', text: body });
  }

  private fragment(out: ParsedPiece[], args: string): void {
    if (args.length > 0) out.push({ type: 'arguments', index: this.calls, arguments: args });
  }

  /** A block in another shape: JSON with `name` and `arguments` (object or string); else it is text. */
  private whole(out: ParsedPiece[], body: string): void {
    try {
      const parsed = JSON.parse(body) as { name?: unknown; arguments?: unknown };
      if (typeof parsed.name === 'string') {
        const args = typeof parsed.arguments === 'string' ? parsed.arguments : JSON.stringify(parsed.arguments ?? {});
        out.push({ type: 'call', index: this.calls, name: parsed.name });
        this.fragment(out, args);
        this.calls++;
        return;
      }
    } catch {
      // not JSON
    }
    out.push({ type: 'text', text: `${TOOL_CALL_OPEN}${body}${TOOL_CALL_CLOSE}` });
  }
}
