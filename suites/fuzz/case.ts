// One generated request, what the server owes it, and the exact text it is sent as. Some of what a
// fuzzer must send cannot come out of JSON.stringify: a key written twice, an integer no double
// holds, nesting deeper than a recursive serializer goes, JSON cut short.
import { stringTraits } from './text.js';

/** What the server owes a request: to serve it (the document allows it), to refuse it (it is not a
 * request of 2.1), or either (legal JSON that many parsers reject: a 4xx is as right as an answer). */
export type Expect = 'served' | 'refused' | 'either';

export interface FuzzCase {
  expect: Expect;
  /** What makes the case what it is: `temperature as a string`, `a valid request`. */
  what: string;
  body: Record<string, unknown>;
  /** This key is written twice, the first time with the same value (RFC 8259, 4: names SHOULD be unique). */
  duplicate?: string;
  /** The JSON text is cut after this many characters (no longer JSON). */
  cut?: number;
  /** The model is what is wrong: a 404 refuses it as well as a 400. */
  aboutModel?: boolean;
}

/** JSON text written as it is: an integer past what a double holds exactly, nesting built as text. */
export class RawJson {
  constructor(readonly text: string) {
    if (!/^[-+0-9.eE[\]{}:,"a-z ]*$/.test(text)) throw new Error(`raw JSON holds only numbers and brackets: ${text.slice(0, 40)}`);
  }

  /** Stands in the stringified text between two marks, which JSON.stringify writes as escapes a
   * generated string could only match by guessing this process's random word. */
  toJSON(): string {
    return `${MARK}${this.text}${MARK}`;
  }
}

const WORD = `fuzz-raw-${Math.random().toString(36).slice(2)}`;
const MARK = `\u0000${WORD}\u0000`;
const MARKED = new RegExp(`"\\\\u0000${WORD}\\\\u0000(.*?)\\\\u0000${WORD}\\\\u0000"`, 'g');

/** JSON.stringify, with raw JSON written as it is. */
const json = (value: unknown) => {
  const text = JSON.stringify(value);
  return text.includes(WORD) ? text.replace(MARKED, (_, raw: string) => raw.replace(/\\"/g, '"')) : text;
};

/** A case is sent, counted and shown by its text: written once. */
const written = new WeakMap<FuzzCase, string>();

/** The request body as sent. */
export function wire(c: FuzzCase): string {
  let text = written.get(c);
  if (text === undefined) written.set(c, (text = write(c)));
  return text;
}

function write(c: FuzzCase): string {
  let text = json(c.body);
  if (c.duplicate !== undefined && c.duplicate in c.body) text = `{${JSON.stringify(c.duplicate)}:${json(c.body[c.duplicate])},${text.slice(1)}`;
  if (c.cut !== undefined) text = text.slice(0, Math.max(1, Math.min(c.cut, text.length - 1)));
  return text;
}

/** What a reader of a failure needs named about a request, besides what made it: its rare inputs. */
export function traitsOf(c: FuzzCase): string[] {
  const found = new Set<string>();
  const walk = (v: unknown, depth: number): void => {
    if (typeof v === 'string') for (const t of stringTraits(v)) found.add(t);
    else if (typeof v === 'number' && Number.isInteger(v) && (v > 2 ** 31 - 1 || v < -(2 ** 31))) found.add('an integer past 32 bits');
    else if (v instanceof RawJson) found.add(rawTrait(v.text));
    else if (v && typeof v === 'object' && depth < 8) for (const x of Object.values(v)) walk(x, depth + 1);
  };
  walk(c.body, 0);
  if (c.duplicate) found.add(`${c.duplicate} written twice`);
  if (c.body.stream === true) found.add('streamed');
  return [...found];
}

/** What raw JSON text is there for: `nesting 1000 deep`, `an array of 10,000 items`. */
function rawTrait(text: string): string {
  if (/^[-\d]+$/.test(text)) return 'an integer past 53 bits';
  if (/^\[+\]+$/.test(text)) return `nesting ${text.length / 2} deep`;
  if (/^\[(0,)*0\]$/.test(text)) return `an array of ${((text.length - 1) / 2).toLocaleString('en-US')} items`;
  return `a number written ${text}`;
}

/** `a valid request (streamed; characters outside the BMP)`. */
export const describeCase = (c: FuzzCase): string => {
  const traits = traitsOf(c);
  return traits.length ? `${c.what} (${traits.join('; ')})` : c.what;
};
