// Faults that prove the verdicts at the edges (issue 34), each as a real server was reported to do
// it: a refusal of one field charged to its owner, not to the rule whose request carried it; an
// answer served where a refusal was due, held to the shape rules by their owners at their level; a
// rule judged only on an answer that reached what it is about; nothing to judge never a pass.
import { errorReply } from '../errors.js';
import { ERRORS_FAULTS } from './errors.js';
import { FUZZ_FAULTS } from './fuzz.js';
import type { Fault } from './fault.js';
import { isCatalog, isChat, onAnswers, requestJson, withRequestJson } from './rewrite.js';

const fallback = ERRORS_FAULTS.find((f) => f.name === 'errors-unknown-model-fallback')!;
const wrongType500 = FUZZ_FAULTS.find((f) => f.name === 'fuzz-wrong-type-500')!;
/** Marks a request whose model the fault replaced, for its reply. */
const FELL_BACK = 'x-conformance-fell-back';

/** The cap a server gives a request of its own accord, below what it was sent. */
const SHORT_CAP = 3;

/** tool_choice forces a call: "required", or the named form. */
const forced = (choice: unknown) => choice === 'required' || (typeof choice === 'object' && choice !== null);

export const EDGE_FAULTS: Fault[] = [
  {
    // Class 3: the refusal is tool_choice's, whose forced forms are conventions (should); the rule
    // of 4.1 that tools.finish-reason holds on the same requests is not about them, and judges none.
    name: 'tools-forced-choice-refused',
    description:
      'A tool request whose tool_choice forces a call ("required", or naming a function) is refused with a 400 naming tool_choice, as an engine without guided decoding for forced calls does; "auto" and "none" are served',
    fails: ['tools.required', 'tools.named'],
    reply: (r, req) => {
      if (!isChat(req) || !('status' in r) || r.status < 200 || r.status >= 300) return r;
      const body = requestJson(req);
      if (!body || !forced(body.tool_choice)) return r;
      const what = body.tool_choice === 'required' ? '"required"' : 'naming a function';
      return errorReply(400, `tool_choice ${what} is not supported: only "auto" and "none" are`, 'invalid_request_error', null, 'tool_choice');
    },
  },
  {
    // Class 5: the answer served where a refusal was due is held to 2.3 by the enum's owner, at must,
    // beside the refusal's own check at should.
    name: 'errors-unknown-model-served-eos',
    description:
      'A model id that does not exist falls back to the first model of the key, as a gateway routing unknown ids to a default backend does, and that answer ends with finish_reason "eos", the backend\'s own name for its end, on both paths',
    fails: ['errors.unknown-model', 'chat.finish-reason'],
    request: (req, ctx) => {
      const fell = fallback.request!(req, ctx);
      return requestJson(fell)?.model === requestJson(req)?.model ? req : { ...fell, headers: { ...fell.headers, [FELL_BACK]: '1' } };
    },
    reply: (r, req, ctx) =>
      req.headers[FELL_BACK]
        ? onAnswers((answer) => {
            for (const c of answer.choices ?? []) if (c.finish_reason) c.finish_reason = 'eos';
          })(r, req, ctx)
        : r,
  },
  {
    // Class 6: the stop rules are about an answer that reached its sequence; one cut three tokens in
    // never did. Its "length" short of every limit it was given is chat.length-only-at-cap's breach.
    name: 'stop-cut-short-length',
    description:
      'A request with stop sequences is cut three tokens in, long before its sequence, with finish_reason "length", as a server that gives it a cap of its own (3) below the max_tokens it was sent',
    fails: ['chat.length-only-at-cap'],
    request: (req) => (isChat(req) && requestJson(req)?.stop !== undefined ? withRequestJson(req, (b) => void (b.max_tokens = SHORT_CAP)) : req),
  },
  {
    // Class 7: without a catalog no generated request is owed an answer (each carries an optional
    // field only a catalog declares): fuzz.no-5xx has nothing to judge, blocked by the catalog's
    // absence (catalog.available), not by fuzz.no-5xx-refusable, which fails on other requests.
    name: 'catalog-absent-wrong-type-500',
    description: 'The site publishes no catalog (404), and a chat request with a numeric field sent as text (temperature "1") answers 500 instead of a 4xx',
    fails: ['catalog.available', 'catalog.status-200', 'catalog.schema', 'auth.catalog-public', 'fuzz.no-5xx-refusable'],
    reply: (r, req, ctx) => (isCatalog(req) ? errorReply(404, 'Not found.', 'invalid_request_error', 'not_found') : wrongType500.reply!(r, req, ctx)),
  },
];
