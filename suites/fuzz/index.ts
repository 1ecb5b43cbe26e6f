// Property-based requests: the rules every answer to a generated request is held to, each a check of
// the registry. One session per run generates, sends, judges and shrinks (session.ts); each check
// reports its property from it, with the smallest request that breaks it as evidence, sent once more.
import { GENERATED_LABEL, inSuite, type ApiCheck, type CheckDef } from '../api.js';
import { fail, notTested, pass, type AxisValues } from '../../engine/check.js';
import type { CheckContext } from '../../engine/runner.js';
import { describeCase, wire } from './case.js';
import { JUDGES_WHAT, PROPERTY_IDS, type PropertyId } from './properties.js';
import { FuzzSession, sendCase, type FuzzSettings } from './session.js';

/** Requests of the short pass inside `conformance run`: one wrong type for each of the 14 fields of
 * 2.1, then a valid request with the rare inputs and one of legal JSON that parsers reject. The
 * default run stays under 200 requests with it (bench/run-cost.ts counts them). */
export const FUZZ_PASS_RUNS = 16;

/** The pass inside `conformance run`: seeded, so a CI gate sees the same requests every time, with a
 * small shrinking budget (against a server that breaks, a run sends a few requests more), and a hang
 * not shrunk (each step would wait a request timeout). */
export const FUZZ_PASS: FuzzSettings = { seed: 1, runs: FUZZ_PASS_RUNS, maxRequests: FUZZ_PASS_RUNS + 24, shrinkRequests: 8, shrinkTimeouts: false };

/** `conformance fuzz` by default: a few hundred requests at most, shrinking included; with more
 * --runs, the same 200 for shrinking and re-sends on top of them. */
export const FUZZ_DEFAULTS = { runs: 200, maxRequests: 400, shrinkRequests: 40 } as const;

const META: Record<PropertyId, Omit<CheckDef, 'id' | 'run' | 'paths'>> = {
  'no-5xx': {
    title: 'No generated request the document obliges the server to serve is answered with a server error (5xx) or a dropped connection',
    section: '4.1',
    level: 'must',
    audit:
      'Sends generated requests of 2.1, each optional field declared for its model, carrying rare inputs and edge values (astral characters, strings past 4 KiB and 64 KiB, integers past 32 bits, numbers in exponent form), and reads each status: 4.1 owes such a request a chat completion, and a server whose parser or model code breaks on an input it did not expect answers 5xx or drops the connection on that one; shown by faults fuzz-astral-500, fuzz-long-string-500, fuzz-64k-string-500 and fuzz-int32-500.',
  },
  'no-5xx-refusable': {
    title:
      'A generated request the server may refuse (not one of 2.1, legal JSON that parsers reject, a field its model does not declare) is answered without a server error (5xx) or a dropped connection',
    section: '2.1, 7',
    level: 'should',
    audit:
      'Sends generated requests that are not of 2.1 (each field with each wrong JSON type, values out of range), legal JSON that parsers reject (nesting 1,000 deep, a key written twice, an integer past 64 bits) and fields the catalog does not declare, and reads each status: a server that breaks on what it should refuse answers 5xx or drops the connection; shown by faults fuzz-wrong-type-500 and fuzz-deep-nesting-500.',
    convention:
      "Section 7 shows no status code: a refusal is due, its form is not. A request the server may refuse is the client's error, refused with a 4xx by convention, as errors.invalid-json holds it; a 5xx says the server broke.",
  },
  'valid-served': {
    title: 'A generated request the document allows is served, or refused with a 4xx only for a field the catalog does not declare for its model',
    section: '2.1, 4.1, 8',
    level: 'must',
    audit:
      'Sends generated requests that 2.1 allows, each field in its legal forms and at the edges of its declared range: a server that refuses a legal value it did not plan for (a character outside the BMP) answers 4xx where a conforming one serves; shown by fault fuzz-astral-refused.',
  },
  'invalid-refused': {
    audit:
      'Sends generated requests that are not of 2.1 (each field with each wrong JSON type, required fields missing, five stops, values out of range, unknown roles and enum values), once a request of the session was served: a server that coerces or ignores what it should refuse serves them; shown by faults fuzz-lax-types and errors-plain-text-body.',
    title: 'A generated request that is not one of 2.1 (a wrong type, a missing field, an unknown value, a value out of its declared range) is refused with a 4xx and an error body',
    section: '2.1, 7',
    level: 'should',
    convention: 'Section 7 does not show the status codes or the error body; a request that is not one of 2.1 is the client\'s error: a 4xx with {"error": {"message": ...}} by convention.',
  },
  'served-shape': {
    audit:
      "Reads every 2xx answer to a generated request part by part, on the parts the plain request's answer has sound: a server whose serializer breaks on a rare input (a control character written raw) sends an answer that no longer reads as 2.3 or as a stream of chunks; shown by fault fuzz-control-characters-raw.",
    title: 'A served answer to a generated request is a chat completion of 2.3, or when streamed a complete stream of valid chunks',
    section: '2.3, 4.1, 6',
    level: 'must',
  },
  'within-timeout': {
    audit:
      'Times every answer to a generated request against the request timeout and the idle limit: a server that hangs on an input it did not expect (a long string) never answers that one; shown by fault fuzz-long-string-hang.',
    title: 'Every generated request is answered within the request timeout',
    section: '4.1',
    level: 'should',
    convention:
      "The document shows no time limit; an answer that does not come within the client's timeout (--timeout), or falls silent past its idle limit (--idle-timeout), serves no client. The one rule that judges the kit's limits: a server slow by design is let through by raising them.",
  },
};

/** The property that failed on the most answers a property could not read, of those that failed at all. */
function blockerOf(unread: Partial<Record<PropertyId, number>> | undefined, failed: (id: PropertyId) => boolean): { id: PropertyId; count: number } | undefined {
  const [best] = Object.entries(unread ?? {})
    .filter(([by]) => failed(by as PropertyId))
    .sort((a, b) => (b[1] ?? 0) - (a[1] ?? 0));
  return best && { id: best[0] as PropertyId, count: best[1] ?? 0 };
}

/** The properties that judge requests the document allows: without a known model there is none. */
const VALID_RULES = new Set<PropertyId>(['no-5xx', 'valid-served', 'served-shape']);

/** The size of a request body as sent (UTF-8). */
const size = (c: Parameters<typeof wire>[0]) => `${Buffer.byteLength(wire(c)).toLocaleString('en-US')} bytes`;

/** The fuzz checks of one session's settings; `note` says once in the report how it was seeded. */
export function fuzzChecks(settings: FuzzSettings, note = `fuzz: seed ${settings.seed}, ${settings.runs} generated requests (--seed ${settings.seed} repeats them)`): ApiCheck[] {
  // The session's requests are evidence of no check: each failing property shows only the smallest
  // request that breaks it. A memo's requests become evidence of every check awaiting it, so the
  // session sends through a context handed out before it has sent anything.
  const sessionOf = (ctx: CheckContext) => ctx.memo('fuzz-session', async (c) => new FuzzSession(await c.memo('fuzz-sender', async (sender) => sender), settings));
  const seedAxis = async (): Promise<AxisValues> => ({ points: [{ value: settings.seed, label: `seed ${settings.seed}` }], note });

  const property = (id: PropertyId): CheckDef => ({
    id: `fuzz.${id}`,
    ...META[id],
    paths: { seed: seedAxis },
    // A session sends its requests in turn while it shrinks: each may take a request's deadline. The
    // run's deadline (--deadline) bounds it as a whole. (setTimeout takes no longer delay than 2^31 - 1.)
    timeLimitMs: (limits) => Math.min(limits.deadlineMs * (settings.maxRequests + 8), 2 ** 31 - 1),
    // The session sends a failing case again itself, and says whether it was flaky.
    once: true,
    async run(ctx) {
      const session = await sessionOf(ctx);
      const out = await session.result();
      const { judged, finding: f, unjudged } = out.properties[id];
      // A failure is one whatever else was served; a pass needs a served request (a server that answers
      // every request 404 neither breaks nor serves: none of its answers proves a property) and, for
      // the rules of valid requests, a known model.
      const unproven = out.noneServed ?? (VALID_RULES.has(id) && out.noModel ? `no model is known: ${out.noModel}` : undefined);
      const cut = out.cut ? [`the session stopped after ${out.generated} of ${settings.runs} requests: ${out.cut}`] : [];
      if (f) {
        const label = `${GENERATED_LABEL}${f.index + 1}, shrunk for fuzz.${id}`;
        // The smallest failing request's own answer (sent already), then the request once more.
        await sendCase(ctx, f.shrunk, label);
        const stop = session.stopped();
        let again = `not sent once more (${stop})`;
        if (!stop) {
          const ex = await sendCase(ctx, f.shrunk, `${label}, sent once more`, 1);
          const still = await session.judge(id, f.shrunk, ex, (c) => out.space.models.find((m) => m.id === c.body.model));
          again = still ? 'stable: sent once more, it broke the rule again' : 'flaky: sent once more, it held';
        }
        const shrunk = f.steps ? `, shrunk in ${f.steps} steps (${f.attempts} requests tried) from ${size(f.first)} to ${size(f.shrunk)}` : '';
        return fail(`${describeCase(f.shrunk)}: ${f.why}; ${again}. Request ${f.index + 1} of ${out.generated} was the first to break it, ${f.count} of ${out.answered} answers did${shrunk}`, cut);
      }
      // No model known because the list could not be read: the list's owner kept it from judging.
      if (unproven) return notTested(unproven, out.space.noModel ? out.space.noModelBy : undefined);
      if (!judged) {
        // Nothing left to judge: named is only what really stood in the way, the property that failed
        // on the answers to this one's own requests (a 5xx, a hang), or the catalog that left none owed.
        const none = unjudged ?? `none of the ${out.answered} answers to generated requests was ${JUDGES_WHAT[id]}`;
        const by = blockerOf(out.properties[id].unreadFor, (other) => !!out.properties[other].finding);
        if (by) return notTested(`${none}: ${by.count} of its requests got answers fuzz.${by.id} failed on`, `fuzz.${by.id}`);
        const [owner, count] = Object.entries(out.properties[id].refusedFor ?? {}).sort((a, b) => b[1] - a[1])[0] ?? [];
        if (owner) return notTested(`${none}: ${count} of its requests were refused for a field the model owes taking (see ${owner})`, owner);
        const catalogless = id === 'no-5xx' && out.space.noCatalog;
        if (catalogless)
          return notTested(
            `${none}: each carries an optional field, which only the catalog declares, and ${catalogless.problem}${catalogless.owner ? ` (see ${catalogless.owner})` : ''}`,
            catalogless.owner,
          );
        return notTested(none);
      }
      // The answers it applies to (a rule of valid requests, of served ones...), and that none broke it.
      const applied = judged === out.answered ? `all ${judged}` : `${judged} of ${out.answered}`;
      return pass([`applied to ${applied} answers to generated requests; held on all`, ...cut, ...(unjudged ? [unjudged] : [])]);
    },
  });

  return inSuite('fuzz', PROPERTY_IDS.map(property));
}

/** The fuzz checks of the registry: the short pass of `conformance run`. */
export const FUZZ: ApiCheck[] = fuzzChecks(FUZZ_PASS, `fuzz pass: seed ${FUZZ_PASS.seed}, ${FUZZ_PASS.runs} generated requests (--fuzz-runs widens it, --no-fuzz turns it off)`);

export type { FuzzSettings } from './session.js';
