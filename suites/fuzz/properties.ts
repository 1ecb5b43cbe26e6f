// The rules every answer to a generated request is held to. Each owns one kind of failure, so one
// defect breaks one property: a 5xx or a dropped connection is no-5xx's where the document obliges
// the server to serve the request, no-5xx-refusable's where it may refuse it (section 7 leaves how
// open), a hang within-timeout's; the others judge only answers that are neither.
import { choicesOf, cutByKit, describe, errorText, is2xx, readStream, type ChatBody } from '../api.js';
import { errorBodyProblem, firstBroken, readAnswer, refusalOf, type Part } from '../answer.js';
import { bodyJson, type Exchange } from '../../engine/exchanges.js';
import { KIT_LIMITS } from '../../engine/http.js';
import type { FuzzCase } from './case.js';
import { undeclaredIn, type ModelSpace } from './space.js';

export type PropertyId = 'no-5xx' | 'no-5xx-refusable' | 'valid-served' | 'invalid-refused' | 'served-shape' | 'within-timeout';

/** The request is the property's, but its answer is none the property reads: a 5xx, a drop, a
 * timeout (the server-error properties' and within-timeout's to judge) or a rate limit. */
export const UNREAD: unique symbol = Symbol('unread');

/** Why an answer breaks a property; undefined when it holds; null when the request is not the
 * property's to judge (a refusal, for the rule about served answers); UNREAD when it is, but its
 * answer is none the property reads, so that the property that failed on that answer is named as
 * what blocked it, and no other. `ignore`: parts of the answer broken on every answer (the plain
 * request's too), which their owners report. */
export type Judge = (c: FuzzCase, ex: Exchange, model: ModelSpace | undefined, ignore?: readonly Part[]) => string | undefined | null | typeof UNREAD;

/** The properties that judge every answer whatever else it is: what they fail on, the others cannot read. */
export const SERVER_FAILURES = ['no-5xx', 'no-5xx-refusable', 'within-timeout'] as const;

/** The parts a request does not ask for: a stream's usage, unless stream_options.include_usage. */
export function unasked(body: ChatBody): Part[] {
  const options = body.stream_options;
  const usage = !!options && typeof options === 'object' && (options as Record<string, unknown>).include_usage === true;
  return body.stream === true && !usage ? ['usage', 'usage-details'] : [];
}

const TIMEOUTS = new Set(['deadline', 'timeout']);
const timedOut = (ex: Exchange) => !!ex.error && TIMEOUTS.has(ex.error.kind);
/** An answer a rule of content can judge: it came, whole or cut at the cap, and is no server error.
 * What the kit cut of it (the rest past --max-body) is judged by none: what came is. */
const judgeable = (ex: Exchange) => ex.status !== undefined && ex.status < 500 && !ex.rateLimited && (!ex.error || ex.error.kind === 'cap');

/** The document obliges the server to serve the request: one of 2.1, every optional field declared
 * for its model. Any other (not one of 2.1, legal JSON that parsers reject, a field the catalog does
 * not declare) the server may refuse, and how it refuses is section 7's, which shows no status code. */
const owed = (c: FuzzCase, model: ModelSpace | undefined): boolean => c.expect === 'served' && !undeclaredIn(c.body, model).length;

const serverError = (ex: Exchange): string | undefined => {
  // A 503 is the server saying it cannot serve now (chat.served-when-valid counts those), not a crash.
  if (ex.status !== undefined && ex.status >= 500 && ex.status !== 503) return `answered ${describe(ex)}${errorText(ex)}`;
  if (ex.error && !TIMEOUTS.has(ex.error.kind) && ex.error.kind !== 'cap')
    return ex.status === undefined ? `no answer: ${ex.error.kind}: ${ex.error.message}` : `the connection was dropped after status ${ex.status}: ${ex.error.kind}: ${ex.error.message}`;
  return undefined;
};

/** A 5xx or a drop, judged on the requests of one side of `owed` only. */
const noServerError =
  (side: boolean): Judge =>
  (c, ex, model) =>
    owed(c, model) === side ? serverError(ex) : null;

/** The one property whose rule is the kit's own limits: a client gives up where the kit does (a
 * generated request a server hangs on is a finding no other request shows), so it fails here, at
 * should, naming the option that lets a server slow by design through; every other property leaves
 * the answer unread. */
const withinTimeout: Judge = (_c, ex) =>
  timedOut(ex)
    ? `not answered in time: ${ex.error!.message}${ex.status !== undefined ? ` (after status ${ex.status})` : ''}; a server this slow by design is let through by raising ${KIT_LIMITS[ex.error!.kind]}`
    : undefined;

const validServed: Judge = (c, ex, model) => {
  if (c.expect !== 'served') return null;
  if (!judgeable(ex) || ex.status === 429) return UNREAD;
  if (is2xx(ex)) return undefined;
  const undeclared = undeclaredIn(c.body, model);
  // Whether the refusal carries a JSON error tells from its whole body, which the kit cut.
  if (ex.status! >= 400 && undeclared.length && cutByKit(ex)) return UNREAD;
  const error = bodyJson(ex).ok && errorText(ex);
  if (ex.status! >= 400 && undeclared.length && error) return undefined;
  const why = undeclared.length ? `; its error body is not JSON with a message` : model?.params ? `; the catalog declares every field it carries for ${model.id}` : '';
  return `a valid request was refused: ${describe(ex)}${errorText(ex)}${why}`;
};

const invalidRefused: Judge = (c, ex) => {
  if (c.expect !== 'refused') return null;
  if (!judgeable(ex) || ex.status === 429) return UNREAD;
  const r = refusalOf(ex, { notFoundRefuses: c.aboutModel });
  if (r.kind === 'served') {
    const errorEvent = readStream(ex).chunks.some(({ chunk }) => 'error' in chunk && !choicesOf(chunk).length);
    return errorEvent ? `it was answered ${describe(ex)} with a stream that carries an error event, instead of an HTTP error` : `it was served (${describe(ex)})`;
  }
  if (r.kind === 'neither') return r.why;
  if (r.kind === 'cut' || cutByKit(ex)) return UNREAD;
  const body = errorBodyProblem(ex);
  return body ? `it was refused (${describe(ex)}), but ${body}` : undefined;
};

const servedShape: Judge = (c, ex, _model, ignore = []) => {
  if (c.expect === 'refused') return null;
  if (!judgeable(ex)) return UNREAD;
  if (!is2xx(ex)) return null;
  const a = readAnswer(ex, (c.body as ChatBody).stream === true);
  // A stream that ends in an error event is the server saying it could not serve: no shape to judge.
  if (a.unserved !== undefined) return null;
  // Cut by the kit, an answer is judged on what came: a part broken in it is broken, whatever follows.
  const broken = firstBroken(a, [...unasked(c.body as ChatBody), ...ignore, ...(a.cut?.parts ?? [])]);
  if (broken === undefined && a.cut) return UNREAD;
  return broken === undefined ? undefined : `the answer is no ${(c.body as ChatBody).stream === true ? 'complete stream of chunks' : 'chat completion'}: ${broken}`;
};

export const JUDGES: Record<PropertyId, Judge> = {
  'no-5xx': noServerError(true),
  'no-5xx-refusable': noServerError(false),
  'valid-served': validServed,
  'invalid-refused': invalidRefused,
  'served-shape': servedShape,
  'within-timeout': withinTimeout,
};

export const PROPERTY_IDS = Object.keys(JUDGES) as PropertyId[];

/** The answers each property judges, for the message of a session that met none. */
export const JUDGES_WHAT: Record<PropertyId, string> = {
  'no-5xx': 'an answer to a request the document obliges the server to serve (one of 2.1, every optional field declared for its model)',
  'no-5xx-refusable': 'an answer to a request the server may refuse (not one of 2.1, legal JSON that parsers reject, or a field its model does not declare)',
  'valid-served': "an answer to a request the document allows that is no 5xx, no timeout and no dropped connection (those are the fuzz.no-5xx checks' and fuzz.within-timeout's)",
  'invalid-refused': "an answer to a request that is not one of 2.1 that is no 5xx, no timeout and no dropped connection (those are fuzz.no-5xx-refusable's and fuzz.within-timeout's)",
  'served-shape': 'a 2xx answer to a request that is not an invalid one',
  'within-timeout': 'an answer',
};
