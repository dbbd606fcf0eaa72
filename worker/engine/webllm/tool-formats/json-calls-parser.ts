// Reads an answer whose tool calls are JSON objects `{"name": …, "arguments": {…}}` after a marker, as Llama 3.x,
// Mistral and Phi-4-mini write them: a list (`[{…}, {…}]`, Mistral's `[TOOL_CALLS]`, Phi-4-mini's `<|tool_call|>`
// … `<|/tool_call|>`) or a sequence (`{…}; {…}`, Llama 3's `<|python_tag|>` or its bare JSON). Each call streams
// as it comes (its start once the name is read, then its arguments in fragments); the text around stays text.
// Text that may be a marker's start is held until it is known not to be one. A region that turns out not to be
// calls (no object, or an object that is not a call) is given back as the text it was, marker included.
// Whitespace that only separates text from calls is the format's: it is dropped.
import { callHead } from '../../common/tool-call-head';
import { partialAtEnd } from './qwen3-parser';
import type { ParsedPiece, ToolCallStream } from './types';

export interface CallRegion {
  /** What opens the region. */
  marker: string;
  /** `list`: a JSON array of calls after the marker; `sequence`: objects separated by `;` or whitespace. */
  list: 'list' | 'sequence';
  /** What closes the region after its list, if anything does. */
  close?: string;
  /** The marker is the start of the first call's JSON itself (kept, not consumed). */
  keep?: boolean;
}

export interface JsonCallsSpec {
  regions: readonly CallRegion[];
  /** The keys a call's arguments may be under. */
  argumentKeys: readonly string[];
}

type State = 'text' | 'list' | 'head' | 'arguments' | 'tail' | 'between' | 'close';

/** A JSON scanner's place: nesting depth, inside a string, after a backslash. */
interface Scan {
  depth: number;
  inString: boolean;
  escape: boolean;
}

/** Scans `text` from `scan`; returns the index just past the character that brings the depth to `target`, or -1. */
function scanTo(text: string, scan: Scan, target: number): number {
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (scan.inString) {
      if (scan.escape) scan.escape = false;
      else if (c === '\\') scan.escape = true;
      else if (c === '"') scan.inString = false;
      continue;
    }
    if (c === '"') scan.inString = true;
    else if (c === '{' || c === '[') scan.depth++;
    else if (c === '}' || c === ']') {
      scan.depth--;
      if (scan.depth <= target) return i + 1;
    }
  }
  return -1;
}

/** A whole call object in a shape the head did not match (keys in another order, string arguments). */
function wholeCall(body: string, keys: readonly string[]): { name: string; args: string } | null {
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    if (typeof parsed !== 'object' || parsed === null || typeof parsed.name !== 'string') return null;
    const key = keys.find((k) => k in parsed);
    const value = key === undefined ? {} : parsed[key];
    return { name: parsed.name, args: typeof value === 'string' ? value : JSON.stringify(value ?? {}) };
  } catch {
    return null;
  }
}

export class JsonCallsParser implements ToolCallStream {
  private readonly head: RegExp;
  private state: State = 'text';
  private held = '';
  private region: CallRegion | null = null;
  /** The region's text so far, while no call of it is known: given back as text if it turns out not to be calls. */
  private raw = '';
  private regionCalls = 0;
  private calls = 0;
  private scan: Scan = { depth: 0, inString: false, escape: false };
  /** The arguments are a JSON string (some models quote them): held whole, then decoded. */
  private quoted = false;
  private afterBlock = false;
  private pendingSpace = '';

  constructor(private readonly spec: JsonCallsSpec) {
    this.head = callHead(spec.argumentKeys);
  }

  push(chunk: string): ParsedPiece[] {
    const out: ParsedPiece[] = [];
    this.held += chunk;
    while (this.step(out));
    return out;
  }

  end(): ParsedPiece[] {
    const out: ParsedPiece[] = [];
    if (this.state === 'text') this.text(out, this.held, true);
    else if (this.state === 'arguments') {
      if (!this.quoted) this.fragment(out, this.held); // cut short (length)
    } else if (this.regionCalls === 0)
      this.text(out, this.raw + this.held, true); // never became calls
    else if (this.state === 'head') {
      // After calls, the start of something that is not one: text.
      this.afterBlock = true;
      this.text(out, this.held, true);
    }
    // Else the end of a list or its close, left unclosed (as the forced grammar leaves it), or cut short: markup.
    this.held = '';
    return out;
  }

  /** One step of the state machine; false when it needs more text. */
  private step(out: ParsedPiece[]): boolean {
    switch (this.state) {
      case 'text':
        return this.inText(out);
      case 'list': {
        const rest = this.held.trimStart();
        if (rest === '') return false;
        if (rest[0] !== '[') return this.notCalls(out);
        this.consume(this.held.length - rest.length + 1);
        this.state = 'head';
        return true;
      }
      case 'head':
        return this.inHead(out);
      case 'arguments':
        return this.inArguments(out);
      case 'tail': {
        // Whatever follows the arguments inside the call's object (more keys), up to the brace that closes it.
        const end = scanTo(this.held, this.scan, 0);
        if (end < 0) {
          this.held = '';
          return false;
        }
        this.held = this.held.slice(end);
        this.calls++;
        this.regionCalls++;
        this.state = 'between';
        return true;
      }
      case 'between': {
        const rest = this.held.trimStart();
        if (rest === '') return false;
        const c = rest[0]!;
        const list = this.region!.list === 'list';
        if ((list && c === ',') || (!list && c === ';')) {
          this.held = rest.slice(1);
          this.state = 'head';
        } else if (!list && c === '{') {
          this.held = rest;
          this.state = 'head';
        } else if (list && c === ']') {
          this.held = rest.slice(1);
          if (this.region!.close) this.state = 'close';
          else this.endRegion();
        } else this.endRegion();
        return true;
      }
      case 'close': {
        const close = this.region!.close!;
        const rest = this.held.trimStart();
        if (rest === '' || (close.startsWith(rest) && rest !== close)) return false;
        if (rest.startsWith(close)) this.held = rest.slice(close.length);
        this.endRegion();
        return true;
      }
    }
  }

  private inText(out: ParsedPiece[]): boolean {
    let found: { at: number; region: CallRegion } | null = null;
    for (const region of this.spec.regions) {
      const at = this.held.indexOf(region.marker);
      if (at >= 0 && (found === null || at < found.at)) found = { at, region };
    }
    if (found) {
      const { at, region } = found;
      // Whitespace before the region waits (pendingSpace): dropped if the region is calls, kept if it is not.
      this.text(out, this.held.slice(0, at));
      this.region = region;
      this.regionCalls = 0;
      this.raw = region.keep ? '' : region.marker;
      this.held = this.held.slice(region.keep ? at : at + region.marker.length);
      this.state = region.list === 'list' ? 'list' : 'head';
      return true;
    }
    const keep = Math.max(...this.spec.regions.map((r) => partialAtEnd(this.held, r.marker)));
    this.text(out, this.held.slice(0, this.held.length - keep));
    this.held = this.held.slice(this.held.length - keep);
    return false;
  }

  private inHead(out: ParsedPiece[]): boolean {
    const rest = this.held.trimStart();
    if (rest === '') return false;
    if (rest[0] !== '{') return this.regionCalls === 0 ? this.notCalls(out) : (this.endRegion(), true);
    const head = this.head.exec(this.held);
    if (head) {
      this.pendingSpace = '';
      out.push({ type: 'call', index: this.calls, name: JSON.parse(head[1]!) as string });
      this.held = this.held.slice(head[0].length);
      this.scan = { depth: 0, inString: false, escape: false };
      this.quoted = this.held.startsWith('"');
      this.state = 'arguments';
      return true;
    }
    // Not (yet) the head's shape: the whole object is read, then made sense of.
    const skipped = this.held.length - rest.length;
    const end = scanTo(rest, { depth: 0, inString: false, escape: false }, 0);
    if (end < 0) return false;
    const call = wholeCall(rest.slice(0, end), this.spec.argumentKeys);
    if (!call) {
      if (this.regionCalls > 0) {
        this.endRegion();
        return true;
      }
      this.consume(skipped + end);
      return this.notCalls(out);
    }
    this.pendingSpace = '';
    out.push({ type: 'call', index: this.calls, name: call.name });
    this.fragment(out, call.args);
    this.held = rest.slice(end);
    this.calls++;
    this.regionCalls++;
    this.state = 'between';
    return true;
  }

  private inArguments(out: ParsedPiece[]): boolean {
    if (this.quoted) {
      // A JSON string: held until it closes, then its value is the arguments.
      const close = /^"(?:[^"\\]|\\.)*"/.exec(this.held);
      if (!close) return false;
      this.fragment(out, JSON.parse(close[0]) as string);
      this.held = this.held.slice(close[0].length);
    } else {
      const end = scanTo(this.held, this.scan, 0);
      if (end < 0) {
        this.fragment(out, this.held);
        this.held = '';
        return false;
      }
      this.fragment(out, this.held.slice(0, end));
      this.held = this.held.slice(end);
    }
    this.scan = { depth: 1, inString: false, escape: false };
    this.state = 'tail';
    return true;
  }

  /** Moves `n` held characters into the region's raw text. */
  private consume(n: number): void {
    this.raw += this.held.slice(0, n);
    this.held = this.held.slice(n);
  }

  /** The region is not calls: its text so far goes out as text, and reading goes on after it. */
  private notCalls(out: ParsedPiece[]): boolean {
    this.text(out, this.raw);
    this.raw = '';
    this.region = null;
    this.state = 'text';
    if (this.spec.regions.some((r) => r.keep && this.held.startsWith(r.marker))) {
      // A kept marker would be found again at once: step over its first character.
      this.text(out, this.held[0]!);
      this.held = this.held.slice(1);
    }
    return true;
  }

  private endRegion(): void {
    this.region = null;
    this.raw = '';
    this.afterBlock = true;
    this.state = 'text';
  }

  private fragment(out: ParsedPiece[], args: string): void {
    if (args.length > 0) out.push({ type: 'arguments', index: this.calls, arguments: args });
  }

  private text(out: ParsedPiece[], text: string, final = false): void {
    let body = this.pendingSpace + text;
    this.pendingSpace = '';
    if (this.afterBlock) {
      body = body.trimStart();
      if (body.length > 0) this.afterBlock = false;
    }
    if (!final) {
      const trimmed = body.trimEnd();
      this.pendingSpace = body.slice(trimmed.length);
      body = trimmed;
    }
    if (body.length > 0) out.push({ type: 'text', text: body });
  }
}
