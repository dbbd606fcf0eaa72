// A JSON Schema `pattern` (an ECMAScript regular expression) as a grammar of a JSON string's content: each
// character the pattern matches is written as JSON writes it (`"` as `\"`, a newline as `\n`), so the string
// stays valid JSON. The pattern is anchored where it says `^` / `$`, and free text may come before / after it
// where it does not (JSON Schema patterns match anywhere). What a grammar cannot hold (lookarounds, back
// references, word boundaries) is refused, naming what.

/** A refused pattern: the message says why. */
export class PatternError extends Error {}

/** Code point ranges, inclusive. */
type Ranges = [number, number][];

const MAX = 0x10ffff;
const DIGIT: Ranges = [[0x30, 0x39]];
const WORD: Ranges = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
const SPACE: Ranges = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0xfeff, 0xfeff],
];

function complement(ranges: Ranges): Ranges {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: Ranges = [];
  let next = 0;
  for (const [lo, hi] of sorted) {
    if (lo > next) out.push([next, lo - 1]);
    next = Math.max(next, hi + 1);
  }
  if (next <= MAX) out.push([next, MAX]);
  return out;
}

/** A JSON string's characters that JSON escapes: `"`, `\` and the controls. */
const ESCAPED: Ranges = [
  [0x00, 0x1f],
  [0x22, 0x22],
  [0x5c, 0x5c],
];

const hex = (n: number) => (n <= 0xffff ? `\\u${n.toString(16).padStart(4, '0')}` : `\\U${n.toString(16).padStart(8, '0')}`);
/** A code point inside a grammar's character class. */
const classChar = (n: number) => (n >= 0x20 && n < 0x7f && !'[]^-\\'.includes(String.fromCharCode(n)) ? String.fromCharCode(n) : hex(n));

/** A set of characters as grammar: a class of those JSON writes as they are, plus the escaped forms of the rest. */
function charSet(ranges: Ranges): string {
  const plain = complement([...complement(ranges), ...ESCAPED]).filter(([lo, hi]) => lo <= hi);
  const parts: string[] = [];
  if (plain.length > 0) parts.push(`[${plain.map(([lo, hi]) => (lo === hi ? classChar(lo) : `${classChar(lo)}-${classChar(hi)}`)).join('')}]`);
  for (const n of [0x22, 0x5c, 0x0a, 0x0d, 0x09, 0x08, 0x0c]) {
    if (ranges.some(([lo, hi]) => lo <= n && n <= hi)) parts.push(literal(String.fromCharCode(n)));
  }
  if (parts.length === 0) throw new PatternError('a character class that matches no character a JSON string can hold');
  return parts.length === 1 ? parts[0]! : `(${parts.join(' | ')})`;
}

/** A character as grammar: a literal of its JSON form. */
function literal(char: string): string {
  const json = JSON.stringify(char).slice(1, -1);
  return `"${json.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** Any character of a JSON string's content, as JSON writes it (the grammar of an unconstrained string's characters). */
export const JSON_CHAR = `([^"\\\\\\x00-\\x1f] | "\\\\" (["\\\\/bfnrt] | "u" [0-9a-fA-F]{4}))`;

class Parser {
  at = 0;
  constructor(readonly src: string) {}

  private peek(): string | undefined {
    return this.src[this.at];
  }

  private fail(why: string): never {
    throw new PatternError(`${why} (at ${this.at} of ${JSON.stringify(this.src)})`);
  }

  /** alternative ('|' alternative)* */
  alternation(): string {
    const branches = [this.sequence()];
    while (this.peek() === '|') {
      this.at++;
      branches.push(this.sequence());
    }
    return branches.length === 1 ? branches[0]! : `(${branches.join(' | ')})`;
  }

  private sequence(): string {
    const items: string[] = [];
    for (let c = this.peek(); c !== undefined && c !== '|' && c !== ')'; c = this.peek()) {
      const atom = this.atom();
      items.push(this.quantified(atom));
    }
    return items.length === 0 ? '""' : items.join(' ');
  }

  private quantified(atom: string): string {
    const c = this.peek();
    let out: string;
    if (c === '?' || c === '*' || c === '+') {
      this.at++;
      out = `(${atom})${c}`;
    } else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.at));
      if (!m) return atom;
      this.at += m[0].length;
      const min = Number(m[1]);
      const max = m[2] === undefined ? min : m[3] === '' ? undefined : Number(m[3]);
      if (max !== undefined && max < min) this.fail('a repetition whose maximum is below its minimum');
      out = `(${atom}){${min},${max ?? ''}}`;
    } else {
      return atom;
    }
    // A lazy quantifier matches the same strings.
    if (this.peek() === '?') this.at++;
    const next = this.peek();
    if (next === '?' || next === '*' || next === '+' || (next === '{' && /^\{\d+(,\d*)?\}/.test(this.src.slice(this.at))))
      this.fail('a quantifier after a quantifier');
    return out;
  }

  private atom(): string {
    const c = this.src[this.at++]!;
    switch (c) {
      case '(': {
        if (this.src.startsWith('?:', this.at)) this.at += 2;
        else if (this.src.startsWith('?<', this.at) && !/^\?<[=!]/.test(this.src.slice(this.at))) {
          const end = this.src.indexOf('>', this.at);
          if (end < 0) this.fail('an unfinished group name');
          this.at = end + 1;
        } else if (this.peek() === '?') this.fail('a lookaround (a grammar cannot look ahead or behind)');
        const inner = this.alternation();
        if (this.src[this.at++] !== ')') this.fail('an unclosed group');
        return `(${inner})`;
      }
      case '[':
        return charSet(this.charClass());
      case '.':
        return charSet(
          complement([
            [0x0a, 0x0a],
            [0x0d, 0x0d],
            [0x2028, 0x2029],
          ]),
        );
      case '\\':
        return this.escapeAtom();
      case '^':
      case '$':
        return this.fail(`'${c}' inside the pattern (anchors are held only at its start and end)`);
      case '*':
      case '+':
      case '?':
      case '{':
        if (c === '{' && !/^\d+(,\d*)?\}/.test(this.src.slice(this.at))) return literal(c);
        return this.fail(`a quantifier '${c}' with nothing before it`);
      default: {
        const cp = this.src.codePointAt(this.at - 1)!;
        if (cp > 0xffff) this.at++;
        return charSet([[cp, cp]]);
      }
    }
  }

  /** After a backslash, outside a class. */
  private escapeAtom(): string {
    const c = this.peek();
    if (c === undefined) this.fail('a pattern that ends in a backslash');
    if (/[1-9]/.test(c) || c === 'k') this.fail('a back reference (a grammar cannot repeat what was matched)');
    if (c === 'b' || c === 'B') this.fail('a word boundary');
    return charSet(this.escapeRanges());
  }

  /** An escape's characters (after the backslash; also inside a class). */
  private escapeRanges(): Ranges {
    const c = this.src[this.at++]!;
    const simple: Record<string, Ranges> = { d: DIGIT, D: complement(DIGIT), w: WORD, W: complement(WORD), s: SPACE, S: complement(SPACE) };
    if (simple[c]) return simple[c];
    const controls: Record<string, number> = { n: 0x0a, r: 0x0d, t: 0x09, f: 0x0c, v: 0x0b, '0': 0 };
    if (c in controls) return [[controls[c]!, controls[c]!]];
    const hexOf = (digits: string | undefined) => {
      if (!digits) this.fail('an incomplete \\x or \\u escape');
      const n = parseInt(digits, 16);
      return [[n, n]] as Ranges;
    };
    if (c === 'x') {
      const m = /^[0-9a-fA-F]{2}/.exec(this.src.slice(this.at));
      this.at += 2;
      return hexOf(m?.[0]);
    }
    if (c === 'u') {
      const braced = /^\{([0-9a-fA-F]{1,6})\}/.exec(this.src.slice(this.at));
      if (braced) {
        this.at += braced[0].length;
        return hexOf(braced[1]);
      }
      const m = /^[0-9a-fA-F]{4}/.exec(this.src.slice(this.at));
      this.at += 4;
      return hexOf(m?.[0]);
    }
    if (c === 'p' || c === 'P') this.fail('a Unicode property escape');
    if (/[A-Za-z]/.test(c)) this.fail(`an unknown escape \\${c}`);
    const cp = this.src.codePointAt(this.at - 1)!;
    return [[cp, cp]];
  }

  /** After '[': the class's characters, up to and with ']'. */
  private charClass(): Ranges {
    const negated = this.peek() === '^';
    if (negated) this.at++;
    const ranges: Ranges = [];
    while (this.peek() !== ']') {
      if (this.peek() === undefined) this.fail('an unclosed character class');
      const start = this.classAtom();
      if (this.peek() === '-' && this.src[this.at + 1] !== ']' && this.src[this.at + 1] !== undefined && start.length === 1 && start[0]![0] === start[0]![1]) {
        this.at++;
        const end = this.classAtom();
        if (end.length !== 1 || end[0]![0] !== end[0]![1]) this.fail('a range whose end is a class');
        if (end[0]![0] < start[0]![0]) this.fail('a range out of order');
        ranges.push([start[0]![0], end[0]![0]]);
      } else {
        ranges.push(...start);
      }
    }
    this.at++;
    return negated ? complement(ranges) : ranges;
  }

  private classAtom(): Ranges {
    const c = this.src[this.at++]!;
    if (c === '\\') {
      if (this.peek() === 'b') {
        this.at++;
        return [[0x08, 0x08]];
      }
      return this.escapeRanges();
    }
    const cp = this.src.codePointAt(this.at - 1)!;
    if (cp > 0xffff) this.at++;
    return [[cp, cp]];
  }
}

/** The grammar of a JSON string's content matching `pattern` (throws PatternError for what a grammar cannot hold). */
export function patternGrammar(pattern: string): string {
  let body = pattern;
  const anchoredStart = body.startsWith('^');
  if (anchoredStart) body = body.slice(1);
  const anchoredEnd = body.endsWith('$') && !body.endsWith('\\$');
  if (anchoredEnd) body = body.slice(0, -1);
  const parser = new Parser(body);
  const inner = parser.alternation();
  if (parser.at !== body.length) throw new PatternError(`an unmatched ')' (at ${parser.at} of ${JSON.stringify(body)})`);
  return [anchoredStart ? '' : `${JSON_CHAR}*`, `(${inner})`, anchoredEnd ? '' : `${JSON_CHAR}*`].filter(Boolean).join(' ');
}
