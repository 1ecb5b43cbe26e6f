// What a request body may be before anything reads it: its size, how deep its JSON nests, how many
// keys an object and how many items an array holds. Checked in the core, so every transport refuses
// the same bodies, and before anything walks the body: validation, the journal and the dashboard
// serialize and traverse what they are given, and a body 5,000 arrays deep or of two million items
// would make each of them a way to stall or crash the mock.
import { closingQuote, openBrackets } from '../../engine/json-strings.js';
import type { BodyLimits, MockConfig } from '../config/types.js';
import { errorReply } from './errors.js';
import type { MockReply, MockRequest } from './types.js';

/** 4 MiB takes a large image as base64; 128 levels is serde_json's default, far past any tool
 * schema; a conversation of 200,000 messages, an object of 10,000 keys, past anything sent for real. */
export const DEFAULT_LIMITS: Readonly<BodyLimits> = Object.freeze({ body_bytes: 4 * 1024 * 1024, depth: 128, keys: 10_000, items: 200_000 });

export const limitsOf = (config: Pick<MockConfig, 'limits'>): BodyLimits => ({ ...DEFAULT_LIMITS, ...config.limits });

const int = (n: number) => n.toLocaleString('en-US');

/** The refusal of a body past a limit, naming the limit and its setting; undefined when within.
 * `shape`: the body's, when it was read already. */
export function overLimit(req: Pick<MockRequest, 'body' | 'size'>, limits: BodyLimits, shape?: BodyShape): MockReply | undefined {
  const body = req.body;
  const size = Math.max(req.size ?? 0, body?.length ?? 0);
  if (size > limits.body_bytes)
    return errorReply(413, `The request body is ${int(size)} bytes, past the limit of ${int(limits.body_bytes)} (limits.body_bytes).`, 'invalid_request_error', 'body_too_large');
  if (!body?.length) return undefined;
  const past = (shape ?? bodyShape(body, limits)).past;
  if (past === 'depth') return errorReply(400, `The request body nests deeper than ${int(limits.depth)} levels (limits.depth).`, 'invalid_request_error', 'body_too_deep');
  if (past === 'keys') return errorReply(400, `An object of the request body has more than ${int(limits.keys)} keys (limits.keys).`, 'invalid_request_error', 'body_too_many_keys');
  if (past === 'items') return errorReply(400, `An array of the request body has more than ${int(limits.items)} items (limits.items).`, 'invalid_request_error', 'body_too_many_items');
  return undefined;
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** Strings longer than this are what the journal cuts in a large body. */
export const LONG_TEXT = 1000;

/** What one pass over a body's text says before it is parsed. */
export interface BodyShape {
  /** The limit its JSON goes past (the pass stops there). */
  past?: 'depth' | 'keys' | 'items';
  /** Characters of its strings beyond the first LONG_TEXT of each: about what cutting its long
   * strings would save (an image's base64 is nearly all of a large body; 100,000 short messages, none).
   * Absent when the body was shown within the limits without being read (see bodyShape). */
  longText?: number;
}

/** The shape of a body shorter than every limit, and than a long string. */
const WITHIN: BodyShape = Object.freeze({ longText: 0 });
/** The shape of a body shown within the limits by its length and its brackets alone. */
const UNREAD: BodyShape = Object.freeze({});

/** The shape of a JSON text, read in one pass before it is parsed: only brackets and commas
 * outside strings count, and strings are skipped with a native search (a megabyte of base64 costs
 * one call). Whether the text is JSON at all is JSON.parse's to say. The bytes of UTF-8 and the
 * characters of a string are read alike: no byte of a multi-byte character is ASCII. */
export function bodyShape(src: string | Uint8Array, limits: Pick<BodyLimits, 'depth' | 'keys' | 'items'>): BodyShape {
  const n = src.length;
  // n characters open at most n levels, put at most n commas in one and hold no string longer than
  // n: a body no longer than any limit is within them all, whatever it holds, and is not read.
  if (n <= limits.depth && n <= limits.keys && n <= limits.items && n <= LONG_TEXT) return WITHIN;
  // No longer than the keys and items limits, only the depth can be past; and a body with no more
  // characters that open a level than the depth allows, in its strings or out, cannot nest deeper.
  if (n <= limits.keys && n <= limits.items && openBrackets(src, limits.depth) <= limits.depth) return n <= LONG_TEXT ? WITHIN : UNREAD;
  const text = typeof src === 'string' ? src : undefined;
  const bytes = typeof src === 'string' ? undefined : src;
  // Per open level: the commas seen (each key or item past the first follows one), and whether it
  // is an object. Never deeper than the limit: the scan stops there. Kept only where a level could
  // hold more members than a limit allows (a body longer than it): the two arrays cost a request of
  // a few hundred bytes more than its whole scan.
  const counting = n > limits.keys || n > limits.items;
  const commas = counting ? new Int32Array(limits.depth + 1) : undefined;
  const object = counting ? new Uint8Array(limits.depth + 1) : undefined;
  let depth = 0;
  let longText = 0;
  for (let i = 0; i < n; i++) {
    const c = text === undefined ? bytes![i] : text.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(src, i + 1);
      if (end === n) break;
      if (end - i - 1 > LONG_TEXT) longText += end - i - 1 - LONG_TEXT;
      i = end;
    } else if (c === COMMA) {
      if (commas && depth > 0 && ++commas[depth] >= (object![depth] ? limits.keys : limits.items)) return { past: object![depth] ? 'keys' : 'items', longText };
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > limits.depth) return { past: 'depth', longText };
      if (commas) {
        commas[depth] = 0;
        object![depth] = c === OPEN_OBJECT ? 1 : 0;
      }
    } else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && depth > 0) depth--;
  }
  return longText ? { longText } : WITHIN;
}
