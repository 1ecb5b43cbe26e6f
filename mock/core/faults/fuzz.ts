// Faults that break only on rare inputs, the ones nobody writes a request for by hand: a character
// outside the Basic Multilingual Plane, a string past 4 KiB or 64 KiB, an integer past 32 bits,
// nesting past a recursive parser's stack, a number sent as text, a control character. They prove
// the fuzz checks: the short pass of a run meets each one, and `conformance fuzz` shrinks each to the
// smallest request that still trips it. And a server that answers nothing but 404, which must leave
// the fuzz properties not-tested: it neither breaks nor serves.
import { schemaAt } from '../../../schemas/index.js';
import { errorReply } from '../errors.js';
import { isRaw, isStream, type MockReply, type MockRequest } from '../types.js';
import type { Fault } from './fault.js';
import { FOREVER_MS } from './frontend.js';
import { isChat, requestJson, withRequestJson, withStreamText } from './rewrite.js';

/** Every string of a JSON value, read without recursion: a request may nest deeper than a stack goes. */
function* strings(value: unknown): Generator<string> {
  const stack = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') yield v;
    else if (v && typeof v === 'object') for (const x of Object.values(v)) stack.push(x);
  }
}

const anyString = (req: MockRequest, test: (s: string) => boolean) => {
  if (!isChat(req)) return false;
  const body = requestJson(req);
  if (!body) return false;
  for (const s of strings(body)) if (test(s)) return true;
  return false;
};

const ASTRAL = /[\ud800-\udbff][\udc00-\udfff]/;
/** A fixed buffer's size: strings longer than this break the faulty server. */
export const LONG_STRING = 4096;
/** A larger buffer (a 16-bit length, a column, a frame): strings longer than this break the faulty server. */
const LONGER_STRING = 65_536;
/** A recursive parser's depth: deeper nesting overflows its stack. */
const DEEPEST = 512;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;

const serverError = (): MockReply => errorReply(500, 'Internal server error.', 'server_error', 'internal_error');

/** The request fields whose schema takes a number, an integer, a boolean. */
const typed = (kind: string) =>
  Object.entries(schemaAt('request#/properties'))
    .filter(([, node]) => [(node as { type?: unknown }).type].flat().includes(kind))
    .map(([name]) => name);
const INTEGER = typed('integer');
const NUMERIC = [...typed('number'), ...INTEGER];
const BOOLEAN = typed('boolean');

/** An integer field of the request (max_tokens, seed) past a signed 32-bit integer, as a parser that
 * reads 64 bits and a field of 32 take it: what 64 bits do not hold, the parser refuses before. */
const overflows = (req: MockRequest) => {
  const body = isChat(req) ? requestJson(req) : undefined;
  return (
    !!body &&
    INTEGER.some((name) => {
      const v = body[name];
      return typeof v === 'number' && Number.isInteger(v) && (v > 2 ** 31 - 1 || v < -(2 ** 31)) && Math.abs(v) < 2 ** 63;
    })
  );
};

/** How deep the request's JSON nests, read without recursion. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (!v || typeof v !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    for (const x of Object.values(v)) stack.push([x, depth + 1]);
  }
  return deepest;
}

/** A numeric field (temperature, max_tokens) sent as text. */
const numberAsText = (req: MockRequest) => {
  const body = isChat(req) ? requestJson(req) : undefined;
  return !!body && NUMERIC.some((name) => typeof body[name] === 'string');
};

/** The reply with a control character written raw inside its first content string, as a JSON
 * writer that does not escape them would. */
function rawControl(r: MockReply): MockReply {
  const bend = (text: string) => text.replace(/"content":"/, '"content":"\u0007');
  if (isStream(r)) return withStreamText(r, bend);
  if (isRaw(r) || r.status !== 200) return r;
  return { ...r, body: bend(typeof r.body === 'string' ? r.body : new TextDecoder().decode(r.body)) };
}

export const FUZZ_FAULTS: Fault[] = [
  {
    name: 'fuzz-astral-500',
    description: 'A chat request holding a character outside the Basic Multilingual Plane (an emoji) answers 500, as a store of three-byte UTF-8 fails',
    fails: ['fuzz.no-5xx'],
    reply: (r, req) => (anyString(req, (s) => ASTRAL.test(s)) ? serverError() : r),
  },
  {
    name: 'fuzz-long-string-500',
    description: `A chat request holding a string longer than ${LONG_STRING} characters answers 500, as a fixed buffer overflows`,
    fails: ['fuzz.no-5xx'],
    reply: (r, req) => (anyString(req, (s) => s.length > LONG_STRING) ? serverError() : r),
  },
  {
    name: 'fuzz-64k-string-500',
    description: `A chat request holding a string longer than ${LONGER_STRING} characters (in any field: a stop sequence) answers 500, as a 16-bit length overflows`,
    fails: ['fuzz.no-5xx'],
    reply: (r, req) => (anyString(req, (s) => s.length > LONGER_STRING) ? serverError() : r),
  },
  {
    name: 'fuzz-int32-500',
    description: 'A chat request with an integer field (max_tokens, seed) past 32 bits and within 64 (a seed of 2^31) answers 500, as a 32-bit field overflows',
    fails: ['fuzz.no-5xx'],
    reply: (r, req) => (overflows(req) ? serverError() : r),
  },
  {
    name: 'fuzz-deep-nesting-500',
    description: `A chat request whose JSON nests deeper than ${DEEPEST} levels answers 500, as a recursive parser overflows its stack`,
    fails: ['fuzz.no-5xx-refusable'],
    reply: (r, req) => (isChat(req) && depthOf(requestJson(req)) > DEEPEST ? serverError() : r),
  },
  {
    name: 'fuzz-wrong-type-500',
    description: 'A chat request with a numeric field sent as text (temperature "1") answers 500 instead of a 4xx, as a handler that computes with it before validating',
    fails: ['fuzz.no-5xx-refusable'],
    reply: (r, req) => (numberAsText(req) ? serverError() : r),
  },
  {
    name: 'fuzz-lax-types',
    description: 'Numbers and booleans sent as text (temperature "1", stream "true") are read as numbers and booleans, as a lenient parser does, instead of refused',
    fails: ['fuzz.invalid-refused'],
    request: (req) =>
      isChat(req)
        ? withRequestJson(req, (b) => {
            for (const name of NUMERIC) if (typeof b[name] === 'string' && b[name] !== '' && Number.isFinite(Number(b[name]))) b[name] = Number(b[name]);
            for (const name of BOOLEAN) if (b[name] === 'true' || b[name] === 'false') b[name] = b[name] === 'true';
          })
        : req,
  },
  {
    name: 'fuzz-astral-refused',
    description: 'A chat request holding a character outside the Basic Multilingual Plane is refused (400), as a store of three-byte UTF-8 does',
    fails: ['fuzz.valid-served'],
    reply: (r, req) => (anyString(req, (s) => ASTRAL.test(s)) ? errorReply(400, 'Invalid characters in the request.', 'invalid_request_error', 'invalid_characters') : r),
  },
  {
    name: 'fuzz-control-characters-raw',
    description: 'The answer to a prompt holding a control character carries one unescaped in its JSON, which is then no JSON',
    fails: ['fuzz.served-shape'],
    reply: (r, req) => (anyString(req, (s) => CONTROL.test(s)) ? rawControl(r) : r),
  },
  {
    name: 'fuzz-long-string-hang',
    description: `A chat request holding a string longer than ${LONG_STRING} characters is never answered, as a parser that loops on long input`,
    fails: ['fuzz.within-timeout'],
    reply: (r, req) => (anyString(req, (s) => s.length > LONG_STRING) ? { status: 200, headers: { 'content-type': 'application/json' }, body: '', delayMs: FOREVER_MS } : r),
  },
  {
    name: 'every-route-404',
    description: 'Every route answers 404 (a wrong base URL, a proxy with no route): nothing is served, so nothing a generated request gets proves a fuzz property',
    fails: ['models.list-shape', 'models.object-constants', 'models.created-seconds', 'models.unique-ids', 'catalog.available', 'catalog.status-200', 'catalog.schema', 'auth.catalog-public'],
    reply: () => errorReply(404, 'Not found.', 'invalid_request_error', 'not_found'),
  },
];
