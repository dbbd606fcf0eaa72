// The number productions of inpage's JSON grammars (json-grammar.ts), bounded so that every number a model
// writes parses to a finite double (JSON.parse never gives Infinity), and `minimum` / `maximum` /
// `exclusiveMinimum` / `exclusiveMaximum` held exactly where they are integers.
//
// The grammar text is the subset GBNF (llama.cpp) and xgrammar's EBNF (web-llm) share: quoted literals, character
// classes, ( ) | ? * + and {m,n}.

/** Digits before the point of a `number`: at most 16 (below 10^16). */
export const NUMBER_INTEGER_DIGITS = 16;
/**
 * Digits after the point of a `number`: at most 22, as many as JSON.stringify writes for any double (it writes
 * 0.000001 to 1e21 without an exponent: at most 5 zeros and 17 significant digits after the point).
 */
export const NUMBER_FRACTION_DIGITS = 22;
/** Digits of a `number`'s exponent: at most 2, so |x| < 10^16 · 10^99, far below the largest double (1.8·10^308). */
export const NUMBER_EXPONENT_DIGITS = 2;
/**
 * An `integer` without bounds of its own is held to ±(2^53 − 1), the integers a double holds exactly (zod's
 * default bounds too); bounds outside that range are narrowed to it.
 */
export const INTEGER_LIMIT = BigInt(Number.MAX_SAFE_INTEGER);

const FRACTION = `"." [0-9]{1,${NUMBER_FRACTION_DIGITS}}`;
const ZERO_FRACTION = `"." "0"{1,${NUMBER_FRACTION_DIGITS}}`;
const NONZERO_FRACTION = `"." "0"{0,${NUMBER_FRACTION_DIGITS - 1}} [1-9] [0-9]{0,${NUMBER_FRACTION_DIGITS - 1}}`;
const EXPONENT = `[eE] [-+]? [0-9]{1,${NUMBER_EXPONENT_DIGITS}}`;

/** Any number, bounded in digits: `-? int frac? exp?`. */
export const NUMBER_RULE = `"-"? ("0" | [1-9] [0-9]{0,${NUMBER_INTEGER_DIGITS - 1}}) (${FRACTION})? (${EXPONENT})?`;

const alternatives = (parts: string[]): string => (parts.length === 1 ? parts[0]! : `(${parts.join(' | ')})`);

/** What may follow a whole number's digits: a fraction (`"." …`, optional or not), or nothing. */
interface Tail {
  expr: string;
  optional: boolean;
}
const NOTHING: Tail = { expr: '', optional: true };

/** Numbers from lo to hi, and what may follow their digits. */
interface Piece extends Tail {
  lo: bigint;
  hi: bigint;
}

/**
 * What may follow the digits written so far: per entry, the strings of k more digits (leading zeros allowed) from
 * lo to hi, and then the tail.
 */
type Suffixes = { k: number; lo: string; hi: string; tail: Tail }[];

/** What may follow digit `d`: each entry one digit shorter, where its strings start with d. */
function after(set: Suffixes, d: string): Suffixes {
  return set
    .filter(({ k, lo, hi }) => k > 0 && d >= lo[0]! && d <= hi[0]!)
    .map(({ k, lo, hi, tail }) => ({ k: k - 1, lo: d === lo[0] ? lo.slice(1) : '0'.repeat(k - 1), hi: d === hi[0] ? hi.slice(1) : '9'.repeat(k - 1), tail }));
}

const keyOf = (set: Suffixes) => JSON.stringify(set.map((e) => [e.k, e.lo, e.hi, e.tail.expr, e.tail.optional]).sort());

/**
 * The grammar of such a set as a deterministic tree: at each step the next digit's classes are disjoint, and
 * the end (with its tail) is an option beside them, never an alternative of another length that starts alike.
 * (xgrammar 0.1.27 lets through strings that alternatives of different lengths sharing a first digit do not
 * allow, e.g. 100000 for `[2-9] [0-9] | [1-9] [0-9] [0-9] | [1-9] [0-9] [0-9] [0-9]`; this form has no such
 * alternatives.)
 */
function digitTree(set: Suffixes, memo: Map<string, string>): string {
  const key = keyOf(set);
  const known = memo.get(key);
  if (known !== undefined) return known;
  // Digits with the same continuation share a class.
  const groups = new Map<string, { digits: string[]; next: Suffixes }>();
  for (const d of '0123456789') {
    const next = after(set, d);
    if (next.length === 0) continue;
    const k = keyOf(next);
    const group = groups.get(k) ?? { digits: [], next };
    group.digits.push(d);
    groups.set(k, group);
  }
  const branches = [...groups.values()].map(({ digits, next }) => `${digitClass(digits)} ${digitTree(next, memo)}`.trim());
  // The pieces are disjoint: at most one ends here.
  const end = set.find((e) => e.k === 0)?.tail;
  if (end?.expr) branches.push(end.expr);
  let out = branches.length === 0 ? '' : branches.length === 1 ? branches[0]! : `(${branches.join(' | ')})`;
  if (end?.optional && out) out = `(${out})?`;
  memo.set(key, out);
  return out;
}

/** Digits as one character class: runs as ranges. */
function digitClass(digits: string[]): string {
  if (digits.length === 1) return `"${digits[0]}"`;
  let out = '';
  for (let i = 0; i < digits.length;) {
    let j = i;
    while (j + 1 < digits.length && digits[j + 1]!.charCodeAt(0) === digits[j]!.charCodeAt(0) + 1) j++;
    out += i === j ? digits[i] : `${digits[i]}-${digits[j]}`;
    i = j + 1;
  }
  return `[${out}]`;
}

/** Whole numbers of disjoint pieces (each 0 ≤ lo ≤ hi), without leading zeros, each followed by its tail. */
function naturals(pieces: Piece[]): string {
  const set: Suffixes = [];
  for (const { lo, hi, ...tail } of pieces) {
    for (let k = String(lo).length; k <= String(hi).length; k++) {
      const first = k === 1 ? 0n : 10n ** BigInt(k - 1);
      const last = 10n ** BigInt(k) - 1n;
      const from = lo > first ? lo : first;
      const to = hi < last ? hi : last;
      if (from <= to) set.push({ k, lo: String(from), hi: String(to), tail });
    }
  }
  return digitTree(set, new Map());
}

/** The natural numbers from `lo` to `hi` (0 ≤ lo ≤ hi), written without leading zeros. */
export function naturalRange(lo: bigint, hi: bigint): string {
  return naturals([{ lo, hi, ...NOTHING }]);
}

/** Integers from `lo` to `hi` (inclusive; lo ≤ hi), `-0` never. */
export function integerRange(lo: bigint, hi: bigint): string {
  const parts: string[] = [];
  if (lo < 0n) parts.push(`"-" ${naturalRange(hi < 0n ? -hi : 1n, -lo)}`);
  if (hi >= 0n) parts.push(naturalRange(lo > 0n ? lo : 0n, hi));
  return alternatives(parts);
}

export interface Bounds {
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

/** Why bounds cannot be held (a non-integer bound of a `number`, an empty range), or undefined. */
export type BoundsProblem = { keyword: keyof Bounds; why: string };

interface Edge {
  at: bigint;
  inclusive: boolean;
}

/** The tighter of minimum / exclusiveMinimum (or of the maxima), as integers; a problem where one is not. */
function edges(bounds: Bounds, integer: boolean): { low?: Edge; high?: Edge } | BoundsProblem {
  const edge = (keyword: keyof Bounds, inclusive: boolean, low: boolean): Edge | BoundsProblem | undefined => {
    const value = bounds[keyword];
    if (value === undefined) return undefined;
    if (!Number.isFinite(value)) return { keyword, why: 'must be a finite number' };
    if (Number.isInteger(value)) return { at: BigInt(value), inclusive };
    // An integer above 2.5 is at least 3: a fractional bound of an integer is the next integer inside it.
    if (integer) return { at: BigInt(low ? Math.ceil(value) : Math.floor(value)), inclusive: true };
    return { keyword, why: 'is not enforced by the grammar when it is not a whole number (a number’s bounds are held where they are integers)' };
  };
  const pick = (a: Edge | BoundsProblem | undefined, b: Edge | BoundsProblem | undefined, low: boolean): Edge | BoundsProblem | undefined => {
    if (a && 'why' in a) return a;
    if (b && 'why' in b) return b;
    if (!a || !b) return a ?? b;
    if (a.at !== b.at) return (low ? a.at > b.at : a.at < b.at) ? a : b;
    return a.inclusive ? b : a;
  };
  const low = pick(edge('minimum', true, true), edge('exclusiveMinimum', false, true), true);
  const high = pick(edge('maximum', true, false), edge('exclusiveMaximum', false, false), false);
  if (low && 'why' in low) return low;
  if (high && 'why' in high) return high;
  return { ...(low ? { low } : {}), ...(high ? { high } : {}) };
}

const empty = (keyword: keyof Bounds): BoundsProblem => ({ keyword, why: 'leaves no value (the bounds exclude each other)' });

/** An `integer`: within its bounds and ±INTEGER_LIMIT. */
export function integerGrammar(bounds: Bounds): string | BoundsProblem {
  const found = edges(bounds, true);
  if ('why' in found) return found;
  let lo = found.low ? found.low.at + (found.low.inclusive ? 0n : 1n) : -INTEGER_LIMIT;
  let hi = found.high ? found.high.at - (found.high.inclusive ? 0n : 1n) : INTEGER_LIMIT;
  if (lo < -INTEGER_LIMIT) lo = -INTEGER_LIMIT;
  if (hi > INTEGER_LIMIT) hi = INTEGER_LIMIT;
  if (lo > hi) return empty(found.high ? (bounds.exclusiveMaximum !== undefined ? 'exclusiveMaximum' : 'maximum') : 'minimum');
  return integerRange(lo, hi);
}

/** The largest integer part a number has (NUMBER_INTEGER_DIGITS digits). */
const NUMBER_TOP = 10n ** BigInt(NUMBER_INTEGER_DIGITS) - 1n;

/** Non-negative numbers y with `low` ≤/< y ≤/< `high` (integer edges; high absent: no upper bound), no exponent. */
function nonNegative(low: Edge, high: Edge | undefined): string[] {
  const pieces: Piece[] = [];
  const top = high ? high.at : NUMBER_TOP + 1n;
  // The low edge itself, excluded: only with a fraction above zero (when that stays below the top).
  if (!low.inclusive && low.at < top) pieces.push({ lo: low.at, hi: low.at, expr: NONZERO_FRACTION, optional: false });
  // Integer parts strictly inside: any fraction.
  const from = low.inclusive ? low.at : low.at + 1n;
  if (from <= top - 1n) pieces.push({ lo: from, hi: top - 1n, expr: FRACTION, optional: true });
  // The high edge itself, included: with no fraction or a zero one.
  if (high?.inclusive && (low.at < high.at || low.inclusive)) pieces.push({ lo: high.at, hi: high.at, expr: ZERO_FRACTION, optional: true });
  return pieces.length === 0 ? [] : [naturals(pieces)];
}

/**
 * A `number`: the NUMBER_RULE, or with bounds (integers) exactly the numbers within them, written without an
 * exponent (every number in a bounded range can be).
 */
export function numberGrammar(bounds: Bounds): string | BoundsProblem {
  const found = edges(bounds, false);
  if ('why' in found) return found;
  const { low, high } = found;
  if (!low && !high) return NUMBER_RULE;
  if (low && high && (low.at > high.at || (low.at === high.at && !(low.inclusive && high.inclusive)))) {
    return empty(bounds.exclusiveMaximum !== undefined ? 'exclusiveMaximum' : 'maximum');
  }
  const parts: string[] = [];
  // The negative side, as "-" and its magnitude: -x within (−high, −low) mirrored; never "-0".
  if (!low || low.at < 0n) {
    const magnitudeLow: Edge = high && high.at < 0n ? { at: -high.at, inclusive: high.inclusive } : { at: 0n, inclusive: false };
    const magnitudeHigh: Edge | undefined = low ? { at: -low.at, inclusive: low.inclusive } : undefined;
    for (const part of nonNegative(magnitudeLow, magnitudeHigh)) parts.push(`"-" ${part}`);
  }
  // The non-negative side.
  if (!high || high.at > 0n || (high.at === 0n && high.inclusive)) {
    const from: Edge = low && low.at >= 0n ? low : { at: 0n, inclusive: true };
    parts.push(...nonNegative(from, high));
  }
  return alternatives(parts);
}
