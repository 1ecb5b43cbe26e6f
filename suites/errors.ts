// Section 4.1 rule 1 and section 7: requests the service cannot serve, with a valid key, and the
// answers they get, streamed and not: a streamed request with bad input is refused like any other,
// not answered with a stream that carries an error. An error counts only where a valid request on
// the same route and path was served.
import { enumAt } from '../schemas/index.js';
import { chat, choicesOf, cutByKit, describe, errorText, fit, is2xx, readStream, inSuite, shownBy, type ApiCheck, type CheckDef, type ChatBody, type ApiPath } from './api.js';
import { controlUnserved, cutOf, errorBodyProblem, onEachAnswer, readAnswer, refusalOf, type Refusal } from './answer.js';
import { combine, fail, notTested, pass, skip, unjudgedBy, type Verdict } from '../engine/check.js';
import { bodyJson, bodyText, type Exchange } from '../engine/exchanges.js';
import type { CheckContext } from '../engine/runner.js';
import { baseline, BOTH_WAYS } from './paths.js';

const SAY_OK = [{ role: 'user', content: 'Say OK.' }];
const NO_SUCH_MODEL = 'conformance-no-such-model';
const ROLES = enumAt('request#/$defs/message/properties/role');
const UNKNOWN_ROLE = 'wizard';
/** JSON cut short: the server cannot know the model or the messages, only that the body is broken. */
const NOT_JSON = '{"model": "x", "messages": [';
/** The same, after a stream field: a server that reads the prefix must still not open a stream. */
const NOT_JSON_STREAMED = '{"stream": true, "model": "x", "messages": [';

/** One faulty request. Those that need a real model use one, so that the model is not the fault. */
interface Case {
  what: string;
  body(model: string, stream: boolean): ChatBody | string;
  needsModel?: boolean;
  /** A 404 is a fitting refusal: the model is what is missing or unknown. */
  aboutModel?: boolean;
  /** What a server that does not refuse it does instead, for the audit line. */
  lax: string;
}

const CASES = {
  missingModel: {
    what: 'a request without model',
    body: () => ({ messages: SAY_OK, max_tokens: 16 }),
    aboutModel: true,
    lax: 'a server that falls back to a default model serves it, or answers its error inside a 200 or a stream',
  },
  missingMessages: { what: 'a request without messages', body: (model) => ({ model, max_tokens: 16 }), needsModel: true, lax: 'a server that makes up a conversation serves it' },
  invalidJson: {
    what: 'a body that is not JSON',
    body: (_model, stream) => (stream ? NOT_JSON_STREAMED : NOT_JSON),
    lax: 'a server that fails on it answers a 5xx, one that reads the prefix opens a stream',
  },
  messagesNotArray: {
    what: 'messages as a string',
    body: (model) => ({ model, messages: 'hello', max_tokens: 16 }),
    needsModel: true,
    lax: 'a server that takes the string for one user message serves it',
  },
  unknownRole: {
    what: `a message with role "${UNKNOWN_ROLE}"`,
    body: (model) => ({ model, messages: [{ role: UNKNOWN_ROLE, content: 'Say OK.' }], max_tokens: 16 }),
    needsModel: true,
    lax: 'a server that takes an unknown role for user serves it',
  },
  unknownModel: {
    what: `model "${NO_SUCH_MODEL}"`,
    body: () => ({ model: NO_SUCH_MODEL, messages: SAY_OK, max_tokens: 16 }),
    aboutModel: true,
    lax: 'a server that falls back to a model it has serves it, one that fails on it answers a 5xx',
  },
} satisfies Record<string, Case>;

/** The audit line of a check of faulty requests: each is the control ("Say OK.", served on the same
 * path) with one thing broken, so only that thing can be what a refusal refuses. */
const auditOf = (cases: Case[], faults: string[], also?: string) =>
  `Sends the valid "Say OK." request of each path (served first), streamed and not, with one thing broken (${cases.map((c) => c.what).join('; ')}): ${cases.map((c) => c.lax).join('; ')}${also ? `; ${also}` : ''}; ${shownBy(faults)}.`;

/** The answer to a faulty request on a path, or why it proves nothing here: a valid request to the
 * same route, on the same path, must be served first (a key or URL refused everywhere answers 4xx
 * to anything). */
async function answer(ctx: CheckContext, c: Case, path: ApiPath): Promise<{ ex?: Exchange; blocked?: Verdict }> {
  const { model, problem, owner, unjudged } = await baseline(ctx);
  const unproven = `${problem}: an error answer proves nothing without a served request`;
  if (problem) return { blocked: unjudged ? unjudgedBy(unjudged, unproven) : notTested(unproven, owner) };
  if (c.needsModel && !model) return { blocked: notTested(`${c.what} needs a model the key can use; name one with --model`) };
  if (model) {
    const blocked = await controlUnserved(ctx, path, model, (why) => `the valid request on the same path was not served (${why}): an error answer proves nothing without it`);
    if (blocked) return { blocked };
  }
  const body = c.body(model ?? NO_SUCH_MODEL, !!path.stream);
  // Only the fault differs from the control: streamed as ask() streams it, within what the catalog declares.
  const sent = typeof body === 'string' ? body : await fit(ctx, path.stream ? { ...body, stream: true, stream_options: { include_usage: true } } : body);
  const ex = await chat(ctx, sent, { label: path.stream ? `${c.what}, streamed` : c.what, refused: true });
  // The faulty request leads the evidence: the control before it only made it meaningful.
  ctx.cite(ex);
  return { ex };
}

const refusal = (c: Case, ex: Exchange, unservable?: boolean): Refusal => refusalOf(ex, { notFoundRefuses: c.aboutModel, unservable });

/** Why a served answer is a fault: a stream opened to carry an error is still a request served. */
function served(ex: Exchange): string {
  const errorEvent = readStream(ex).chunks.some(({ chunk }) => 'error' in chunk && !choicesOf(chunk).length);
  return errorEvent ? `it was answered ${describe(ex)} with a stream that carries an error event, instead of an HTTP error` : `it was served (${describe(ex)})`;
}

/** The request is not served: it gets an error answer that says why (a refusal; a 5xx whose error
 * says why, the request being incomplete by the document; not a 5xx that says nothing, nor a cut).
 * The status is errors.missing-field-4xx's, a convention. */
function refusedCheck(id: string, c: Case, title: string, faults: string[]): CheckDef {
  return {
    id,
    title,
    section: '4.1',
    level: 'must',
    audit: auditOf([c], faults, 'a 5xx is the error only where its body says why (an error object with a message), its status judged by errors.missing-field-4xx; one that says nothing is none'),
    paths: BOTH_WAYS,
    async run(ctx, path) {
      const { ex, blocked } = await answer(ctx, c, path);
      if (!ex) return blocked!;
      const r = refusal(c, ex, true);
      if (r.kind === 'cut') return cutOf(ex)!;
      if (r.kind === 'refused') return pass(r.toldBy ? [`${c.what} was refused with ${r.toldBy}: its status is errors.missing-field-4xx's to judge`] : undefined);
      return fail(`${c.what} got no error answer: ${r.kind === 'served' ? served(ex) : r.why}; the request is incomplete without it`);
    },
  };
}

const client4xx = (c: Case, ex: Exchange): Verdict => {
  const r = refusal(c, ex);
  if (r.kind === 'cut') return cutOf(ex)!;
  return r.kind === 'refused' ? pass() : fail(`${c.what} was not refused with a 4xx: ${r.kind === 'served' ? served(ex) : r.why}; the fault is the client's`);
};

/** The request gets a 4xx: the client's fault, told as such. */
function clientErrorCheck(id: string, cases: Case[], meta: Pick<ApiCheck, 'title' | 'section' | 'convention'>, faults: string[], also?: string): CheckDef {
  return {
    id,
    level: 'should',
    ...meta,
    audit: auditOf(cases, faults, also),
    paths: BOTH_WAYS,
    async run(ctx, path) {
      const verdicts = await Promise.all(
        cases.map(async (c) => {
          const { ex, blocked } = await answer(ctx, c, path);
          return ex ? client4xx(c, ex) : blocked!;
        }),
      );
      return combine(verdicts);
    },
  };
}

export const missingModel = refusedCheck('errors.missing-model', CASES.missingModel, 'A request without model is not served: it answers an error', [
  'errors-missing-model-200',
  'errors-streamed-error-event',
  'errors-missing-field-500',
]);
export const missingMessages = refusedCheck('errors.missing-messages', CASES.missingMessages, 'A request without messages is not served: it answers an error', [
  'errors-missing-messages-served',
  'errors-missing-messages-404',
]);

export const missingField4xx = clientErrorCheck(
  'errors.missing-field-4xx',
  [CASES.missingModel, CASES.missingMessages],
  {
    title: 'A request without model or messages answers a 4xx',
    section: '4.1, 7',
    convention: "Section 7 does not show the status codes; an incomplete request is the client's error, 4xx (400) by convention.",
  },
  ['errors-missing-field-500', 'errors-missing-model-200', 'errors-incomplete-500-with-error'],
  'a server that refuses them with a 5xx fails, even where its error says why (which holds errors.missing-model and errors.missing-messages)',
);

export const invalidJson = clientErrorCheck(
  'errors.invalid-json',
  [CASES.invalidJson],
  {
    title: 'A body that is not JSON answers a 4xx',
    section: '7',
    convention: "Section 7 does not show the status codes; a body that cannot be parsed is the client's error, 4xx (400) by convention.",
  },
  ['errors-invalid-json-500'],
);

export const messagesNotArray = clientErrorCheck(
  'errors.messages-not-array',
  [CASES.messagesNotArray],
  {
    title: 'messages that is not an array answers a 4xx',
    section: '7',
    convention: "Section 7 does not show the status codes; a field of the wrong type is the client's error, 4xx (400) by convention.",
  },
  ['errors-messages-string-accepted'],
);

export const unknownRole = clientErrorCheck(
  'errors.unknown-role',
  [CASES.unknownRole],
  {
    title: `A message whose role is none of ${ROLES.join(', ')} answers a 4xx`,
    section: '2.2, 7',
    convention: "Section 7 does not show the status codes; a role outside the list of 2.2 is the client's error, 4xx (400) by convention.",
  },
  ['errors-unknown-role-as-user'],
);

export const unknownModel = clientErrorCheck(
  'errors.unknown-model',
  [CASES.unknownModel],
  {
    title: 'A model id that does not exist answers a 4xx',
    section: '4.1, 7',
    convention: "Section 7 does not show the status codes; an unknown model is the client's error, 4xx (404 or 400) by convention.",
  },
  ['errors-unknown-model-fallback', 'errors-unknown-model-500'],
);

export const errorBody: CheckDef = {
  id: 'errors.error-body',
  title: 'An error answer carries a JSON error body: {"error": {"message": ...}} with a message',
  section: '7',
  level: 'should',
  audit:
    'Reads the error answers to all six faulty requests, streamed and not: an error in plain text, or a JSON error without error.message or with an empty one, fails; shown by faults errors-plain-text-body, errors-no-message and errors-empty-message.',
  convention: 'Section 7 does not show the error body; the convention is the OpenAI-compatible {"error": {"message", "type", "param", "code"}}.',
  paths: BOTH_WAYS,
  async run(ctx, path) {
    const answers = await Promise.all(Object.values(CASES).map(async (c: Case) => ({ c, ...(await answer(ctx, c, path)) })));
    // An error body the kit cut at its own limit is none to judge.
    const errors = answers.filter((a): a is typeof a & { ex: Exchange } => a.ex !== undefined && a.ex.status !== undefined && !is2xx(a.ex) && !cutByKit(a.ex));
    return onEachAnswer(
      errors,
      answers.map((a) => a.blocked?.message ?? (a.ex && cutByKit(a.ex) ? `${a.c.what}: ${cutByKit(a.ex)}` : undefined)),
      'no request of this suite got an error answer',
      ({ c, ex }) => {
        const problem = errorBodyProblem(ex);
        return problem && `${c.what} (${describe(ex)}): ${problem}`;
      },
    );
  },
};

/** Whether an error answer calls itself a content filter. */
const filterError = (ex: Exchange) => {
  const json = bodyJson(ex);
  const error = json.ok ? (json.value as { error?: { code?: unknown; type?: unknown } })?.error : undefined;
  return [error?.code, error?.type].some((v) => typeof v === 'string' && /content[_ ]?filter/i.test(v));
};

/** Whether a served chat answer says content_filter, on either path; read from the raw text, so
 * that an answer cut short still shows it. */
// Looked for in the bytes first: the run's every answer is read, and most are not decoded for it.
const filtered = (ex: Exchange) => ex.body.includes('content_filter') && /"finish_reason"\s*:\s*"content_filter"/.test(bodyText(ex));

export const contentFilter: CheckDef = {
  id: 'errors.content-filter',
  title: 'Wherever content is filtered, the answer is a complete 2xx response with finish_reason "content_filter", never an error',
  section: '7, 2.3',
  level: 'must',
  audit:
    'Reads every chat answer of the run for a content filter (skipped when none was filtered): a server that tells a filtered answer as an HTTP error (code content_filter), or ends it with content_filter but cuts the body short, fails; shown by faults errors-content-filter-as-error and errors-content-filter-cut.',
  last: true,
  async run(ctx) {
    const chats = (await ctx.received()).filter((ex) => ex.request.method === 'POST' && ex.request.url.endsWith('/v1/chat/completions'));
    const wrong: string[] = [];
    let seen = 0;
    for (const ex of chats) {
      if (!is2xx(ex) && filterError(ex)) {
        seen++;
        wrong.push(`${ex.label} was answered ${describe(ex)}${errorText(ex)}: a content filter is a completed response (7), not an error`);
      } else if (is2xx(ex) && !cutByKit(ex) && filtered(ex)) {
        // What the kit cut at its own limit is not known to be incomplete: its rest was not waited for.
        seen++;
        const stream = /^text\/event-stream/i.test(ex.headers['content-type'] ?? '') || !bodyJson(ex).ok;
        const read = readAnswer(ex, stream);
        const incomplete = read.broken.served ?? read.broken.events ?? read.broken.complete;
        if (incomplete !== undefined) wrong.push(`${ex.label} ended with content_filter but is no complete response: ${incomplete}`);
      }
    }
    if (wrong.length) return fail(wrong.join('; '));
    return seen ? pass([`${seen} filtered answer(s) seen`]) : skip(`none of the ${chats.length} chat answers of this run was filtered`);
  },
};

export const ERRORS: ApiCheck[] = inSuite('errors', [missingModel, missingMessages, missingField4xx, invalidJson, messagesNotArray, unknownRole, unknownModel, errorBody, contentFilter]);
