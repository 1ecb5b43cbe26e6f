// JSON from a server, parsed only once it is known to fit: a body under the size cap can still
// take a client down. JSON.parse materialises every container (an 8 MB `[[[…]]]` is four million
// arrays: 214 MB and ten seconds), a dictionary of a million keys costs 71 MB, and a walker (a schema
// validator, JSON.stringify) recurses once per level. One pass over the raw bytes or characters
// counts them first, so a body past a limit is never materialised: it is a finding about the server.
import { closingQuote, openBrackets } from './json-strings.js';
import { CUT } from './redact.js';

/** Limits no real answer comes near (a chat completion nests about six deep and holds a few dozen
 * keys; a provider catalog of a thousand models, some tens of thousands of keys), each far below
 * the size at which parsing costs a run its memory (docs/bounded-input.md has the figures). */
export const JSON_LIMITS = {
  /** Containers open at once: a walker recurses once per level. */
  depth: 512,
  /** Object members in the whole document. */
  keys: 100_000,
  /** Objects and arrays in the whole document: what parsing allocates most of. */
  containers: 100_000,
} as const;

export type JsonLimits = { readonly depth: number; readonly keys: number; readonly containers: number };

const QUOTE = 0x22;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/** Why `input` is past a limit, or undefined. Bytes or characters alike: the structural characters
 * are ASCII, which UTF-8 never uses inside a multi-byte sequence. Invalid JSON is JSON.parse's to
 * report; this only counts. */
export function jsonLimitProblem(input: Uint8Array | string, limits: JsonLimits = JSON_LIMITS): string | undefined {
  const text = typeof input === 'string';
  const n = input.length;
  // n characters open at most n containers, n levels deep, and hold at most n colons: a text no
  // longer than every limit (an answer's chunk, most bodies) cannot be past one, and is not read.
  if (n <= limits.depth && n <= limits.keys && n <= limits.containers) return undefined;
  // No longer than the count limits, only the depth can be past, and not by a text with no more
  // characters that open a level than the depth allows, in its strings or out.
  if (n <= limits.keys && n <= limits.containers && openBrackets(input, limits.depth) <= limits.depth) return undefined;
  let depth = 0;
  let keys = 0;
  let containers = 0;
  for (let i = 0; i < n; i++) {
    const c = text ? (input as string).charCodeAt(i) : (input as Uint8Array)[i];
    if (c === QUOTE) {
      i = closingQuote(input, i + 1);
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limits.depth) return `JSON nested deeper than ${limits.depth} levels`;
      if (++containers > limits.containers) return `JSON with more than ${limits.containers} objects and arrays`;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
    else if (c === COLON && ++keys > limits.keys) return `JSON with more than ${limits.keys} keys`;
  }
  return undefined;
}

export type JsonParse = { ok: true; value: unknown } | { ok: false; error: string };

/** JSON.parse behind the limits: `error` says what is wrong (past a limit, or not JSON). */
export function parseJson(text: string, limits: JsonLimits = JSON_LIMITS): JsonParse {
  const past = jsonLimitProblem(text, limits);
  if (past) return { ok: false, error: past };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, error: parseError(e) };
  }
}

/** JSON.parse's message, its quote of the text marked where V8 cut it (`"sk-hosti"...`) with the
 * mark every cut carries, so that a piece of a key it split is redacted (engine/redact.ts). */
export function parseError(e: unknown): string {
  return String((e as Error)?.message ?? e)
    .replace(/(^|[\s,])\.\.\."/, `$1"${CUT}`)
    .replace(/"\.\.\.( is not valid JSON)$/, `${CUT}"$1`);
}
