// Stop sequences applied by inpage to the answer as it streams, for models whose output web-llm would match
// them against in full: Qwen3's thinking block (and the empty block web-llm puts first when thinking is off)
// would otherwise hit a stop sequence before the answer began. Text that could be the start of a stop
// sequence is held until it is known not to be one; a match cuts the answer just before it, as OpenAI does.

export class StopMatcher {
  private held = '';
  private hit = false;

  constructor(private readonly stops: readonly string[]) {}

  /** Whether a stop sequence has appeared: nothing more is released, and the generation should end. */
  get matched(): boolean {
    return this.hit;
  }

  /** Feeds answer text; returns what may be released now. */
  push(text: string): string {
    if (this.hit) return '';
    if (this.stops.length === 0) return text;
    this.held += text;
    const cut = this.firstMatch();
    // A stop sequence that begins before the match may still complete with the text to come: until it is known,
    // only what lies before its start is released.
    const open = this.held.length - this.partialAtEnd();
    if (cut >= 0 && cut <= open) return this.cutAt(cut);
    const ready = this.held.slice(0, open);
    this.held = this.held.slice(open);
    return ready;
  }

  /** Releases what is held once the stream has ended: up to a match in it, else all of it. */
  end(): string {
    if (this.hit) return '';
    const cut = this.firstMatch();
    if (cut >= 0) return this.cutAt(cut);
    const rest = this.held;
    this.held = '';
    return rest;
  }

  private cutAt(cut: number): string {
    this.hit = true;
    const before = this.held.slice(0, cut);
    this.held = '';
    return before;
  }

  /** Where the earliest complete stop sequence in the held text begins, or -1. */
  private firstMatch(): number {
    let cut = -1;
    for (const stop of this.stops) {
      const at = this.held.indexOf(stop);
      if (at >= 0 && (cut < 0 || at < cut)) cut = at;
    }
    return cut;
  }

  /** Length of the longest end of the held text that begins some stop sequence. */
  private partialAtEnd(): number {
    let longest = 0;
    for (const stop of this.stops) {
      for (let n = Math.min(stop.length - 1, this.held.length); n > longest; n--) {
        if (stop.startsWith(this.held.slice(this.held.length - n))) {
          longest = n;
          break;
        }
      }
    }
    return longest;
  }
}
