// Sections 2.1 and 8: "Per-model parameter support and ranges: declared in the public catalog". Each
// parameter a model under test declares is a path; the values tried come from its descriptor, never
// from this file: both ends and a value inside are accepted, just beyond each end refused.
import { catalog, chat, declaredParameters, declaredRange, fit, inSuite, type ApiCheck, type CheckDef, type ParameterDescriptor, type ApiPath } from './api.js';
import { cutOf, locatedVerdict, notServed, refusalOf, servedCut } from './answer.js';
import { locatedOf, refusedFor, serve, withoutRefused, type RefusedField } from './ask.js';
import { combine, fail, notTested, pass, type Axis, type Verdict } from '../engine/check.js';
import type { Exchange } from '../engine/exchanges.js';
import type { CheckContext } from '../engine/runner.js';
import { MODELS } from './paths.js';

/** Fields that change what the response is (a stream, several choices, tool calls, structured
 * output) or are refused without a companion field: they have suites of their own. */
const NOT_ALONE = new Set(['tools', 'tool_choice', 'parallel_tool_calls', 'response_format', 'stream', 'stream_options', 'n', 'top_logprobs', 'model', 'messages']);

const MESSAGES = [{ role: 'user', content: 'Say OK.' }];
/** Enough for a short answer, little enough to cost nothing (fit moves it into the declared range). */
const SMALL_MAX_TOKENS = 16;
const STOP_ITEM = '###';
const NOT_A_VALUE = 'conformance-invalid';
const SEED = 7;

const bounded = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n);

/** What a catalog declares is the server's word, sized by the server: a request of the kit carries
 * at most this many stop sequences (a max_items past it is tried at it, and not beyond), and tries
 * at most this many of the values an enum declares. */
const MOST_ITEMS_SENT = 64;
const MOST_VALUES_TRIED = 16;

interface Trial {
  value: unknown;
  /** Why the value is in or out of the declared range, for messages. */
  why: string;
}

/** A value a little beyond an end: one for an integer, a hundredth of the range for a real number. */
function step(d: ParameterDescriptor, min?: number, max?: number): number {
  if (d.type === 'integer') return 1;
  return min !== undefined && max !== undefined && max > min ? (max - min) / 100 : 1;
}

const round = (n: number) => Math.round(n * 1e6) / 1e6;

/** Values the descriptor allows: both ends and one inside; every enum value; arrays at 1 and at most items. */
function inRange(name: string, d: ParameterDescriptor): Trial[] {
  const { min, max } = declaredRange(d);
  switch (d.type) {
    case 'range':
    case 'integer': {
      const inside =
        min !== undefined && max !== undefined
          ? d.type === 'integer'
            ? Math.floor((min + max) / 2)
            : round((min + max) / 2)
          : min !== undefined
            ? min + step(d, min, max)
            : max !== undefined
              ? max - step(d, min, max)
              : bounded(d.default)
                ? d.default
                : d.type === 'integer'
                  ? SEED
                  : undefined;
      const trials: Trial[] = [];
      if (min !== undefined) trials.push({ value: min, why: `the declared min ${min}` });
      if (inside !== undefined && inside !== min && inside !== max) trials.push({ value: inside, why: `inside [${min ?? ''}, ${max ?? ''}]` });
      if (max !== undefined) trials.push({ value: max, why: `the declared max ${max}` });
      return trials;
    }
    case 'enum':
      return Array.isArray(d.values)
        ? d.values
            .filter((v) => v !== null)
            .slice(0, MOST_VALUES_TRIED)
            .map((value) => ({ value, why: 'a declared value' }))
        : [];
    case 'array': {
      // Only stop's items are known; other arrays have no item the kit could make up.
      if (name !== 'stop' || (bounded(d.max_items) && d.max_items < 1)) return [];
      const most = bounded(d.max_items) ? Math.min(Math.floor(d.max_items), MOST_ITEMS_SENT) : 1;
      return [...new Set([1, most])].map((n) => ({ value: Array.from({ length: n }, (_, i) => `${STOP_ITEM}${i + 1}`), why: `${n} item${n > 1 ? 's' : ''}` }));
    }
    case 'boolean':
      return [true, false].map((value) => ({ value, why: 'a boolean' }));
    default:
      return [];
  }
}

/** Values the descriptor excludes: just beyond each end, a fraction for an integer, an undeclared
 * enum value, one item more than allowed. */
function outOfRange(name: string, d: ParameterDescriptor): Trial[] {
  const { min, max } = declaredRange(d);
  switch (d.type) {
    case 'range':
    case 'integer': {
      const s = step(d, min, max);
      const trials: Trial[] = [];
      if (min !== undefined) trials.push({ value: round(min - s), why: `just below the declared min ${min}` });
      if (max !== undefined) trials.push({ value: round(max + s), why: `just above the declared max ${max}` });
      if (d.type === 'integer') {
        const inside = inRange(name, d).map((t) => t.value as number);
        const base = inside.find((v) => v !== max) ?? inside[0] ?? SEED;
        trials.push({ value: base + 0.5, why: 'a fraction, for an integer parameter' });
      }
      return trials;
    }
    case 'enum':
      return Array.isArray(d.values) && !d.values.includes(NOT_A_VALUE) ? [{ value: NOT_A_VALUE, why: `not among ${shownValues(d.values)}` }] : [];
    case 'array':
      return name === 'stop' && bounded(d.max_items) && d.max_items < MOST_ITEMS_SENT
        ? [{ value: Array.from({ length: Math.floor(d.max_items) + 1 }, (_, i) => `${STOP_ITEM}${i + 1}`), why: `more than the declared max_items ${d.max_items}` }]
        : [];
    default:
      return [];
  }
}

/** The declared values of an enum, the first few of them. */
const shownValues = (values: unknown[]) =>
  `${values
    .slice(0, MOST_VALUES_TRIED)
    .map((v) => JSON.stringify(v))
    .join(', ')}${values.length > MOST_VALUES_TRIED ? ` and ${values.length - MOST_VALUES_TRIED} more` : ''}`;

/** The parameters a model under test declares that can be tried on their own. */
const DECLARED: Axis<CheckContext> = async (ctx, path) => {
  const info = await catalog(ctx);
  if (info.problem) return { points: [], problem: info.problem, blockedBy: info.owner };
  const entry = info.entries.get(String(path.model));
  if (!entry) return { points: [], problem: `${String(path.model)} has no catalog entry` };
  const params = declaredParameters(entry);
  if (!params) return { points: [], problem: `${String(path.model)}'s catalog entry declares no supported_parameters`, blockedBy: 'catalog.supported-parameters' };
  const names = Object.entries(params)
    .filter(([name, d]) => !NOT_ALONE.has(name) && d && typeof d === 'object' && inRange(name, d).length)
    .map(([name]) => name);
  return names.length ? { points: names.map((n) => ({ value: n, label: n })) } : { points: [], problem: `${String(path.model)} declares no parameter that can be tried on its own` };
};

const PATHS = { model: MODELS, parameter: DECLARED };

async function descriptor(ctx: CheckContext, path: ApiPath): Promise<ParameterDescriptor> {
  return declaredParameters((await catalog(ctx)).entries.get(path.model!))![String(path.parameter)];
}

/** The same body for the same value, so that checks (and models.ids-usable) share answers. A value
 * in the declared range is asked as every request the kit expects served (ask.ts: a refusal of a
 * field sent beside it is located, and the value judged without that field); one outside it is
 * `refused`, as its check expects, and sent without what its control was served without. */
async function tryValue(ctx: CheckContext, path: ApiPath, t: Trial, refused = false) {
  const name = String(path.parameter);
  const body = { ...(await fit(ctx, { model: path.model!, messages: MESSAGES, max_tokens: SMALL_MAX_TOKENS })), [name]: t.value };
  const label = `${name}=${JSON.stringify(t.value)} (${t.why}) on ${path.model}`;
  if (!refused) return serve(ctx, body, label, { tries: [name] });
  return chat(ctx, (await withoutRefused(ctx, body, [name])).body, { label, refused });
}

const shown = (path: ApiPath, t: Trial) => `${String(path.parameter)}=${JSON.stringify(t.value)} (${t.why})`;

/** Each value tried and its answer judged by `wrong` (what the answer does that breaks the rule, or
 * nothing); a value's request is cited where it breaks it. */
async function eachTrial(ctx: CheckContext, path: ApiPath, trials: Trial[], wrong: (ex: Exchange) => string | undefined, refused = false): Promise<Verdict> {
  const name = String(path.parameter);
  const sent = await Promise.all(trials.map(async (t) => ({ t, ex: await tryValue(ctx, path, t, refused) })));
  const whole = refused ? undefined : refusedWhole(sent, name);
  const verdicts = sent.map(({ t, ex }): Verdict => {
    if (whole) return notTested(`${shown(path, t)} got no answer, as no value of ${name} tried was: ${whole.why}; see ${whole.owner}`, whole.owner, `${ex.label}: ${whole.why}`);
    // What the kit cut at its own limit says neither served nor refused.
    const cut = refused ? (refusalOf(ex).kind === 'cut' ? cutOf(ex) : undefined) : servedCut(ex, false);
    if (cut) return cut;
    // A refusal of a field sent beside the value (max_tokens beside temperature) is that field's owner's.
    const located = refused ? undefined : locatedVerdict(ex, ctx.check, shown(path, t), [name]);
    if (located) return located;
    const why = wrong(ex);
    if (why === undefined) return pass();
    ctx.cite(ex);
    return fail(`${shown(path, t)} ${why}`);
  });
  return combine(verdicts);
}

/** The parameter refused as a field, at every value tried, where another check owns the field and
 * the model owes taking it (a model that refuses max_tokens is chat.max-tokens' failure, stop
 * stop.array's): this rule is blocked by that owner. Refused at some values and served at others, the
 * values are this rule's. */
function refusedWhole(sent: readonly { ex: Exchange }[], name: string): RefusedField | undefined {
  const fields = sent.map(({ ex }) => locatedOf(ex)?.fields.find((f) => f.field === name));
  const field = fields[0];
  return fields.every(Boolean) && field && field.owner !== 'parameters.in-range' && field.owed ? field : undefined;
}

export const inRangeAccepted: CheckDef = {
  id: 'parameters.in-range',
  title: 'A parameter the catalog declares for a model is accepted at both ends of its declared range and inside it, and at each declared value',
  section: '8',
  level: 'must',
  audit:
    'Sends "Say OK." with each parameter a model\'s catalog entry declares at both ends of its range and inside it, at each declared enum value, and stop arrays of 1 and max_items: a server whose limits are narrower than it declares (the maximum read as exclusive, a declared value refused) refuses one of them; shown by faults parameters-max-refused, parameters-enum-value-refused and parameters-catalog-overstates-range.',
  paths: PATHS,
  async run(ctx, path) {
    return eachTrial(ctx, path, inRange(String(path.parameter), await descriptor(ctx, path)), (ex) => {
      const unserved = notServed(ex, false);
      return unserved === undefined ? undefined : `was not served: ${unserved}`;
    });
  },
};

export const outOfRangeRefused: CheckDef = {
  id: 'parameters.out-of-range',
  title: 'A value outside what the catalog declares for a model (beyond an end, a fraction for an integer, an undeclared value) is refused',
  section: '8, 7',
  level: 'should',
  audit:
    'Sends the same request just beyond each end of each declared range (both ends, so a server that checks one only fails), a fraction for an integer, an undeclared enum value and one stop sequence more than max_items, each once the values in range were served: a server that clamps, truncates or ignores the value serves it; shown by faults parameters-ranges-ignored, parameters-min-unchecked, parameters-fraction-truncated and parameters-undeclared-value-accepted.',
  convention: 'What the service does with a value outside a declared range is not shown; the convention is a 4xx refusal.',
  paths: PATHS,
  async run(ctx, path) {
    const d = await descriptor(ctx, path);
    const trials = outOfRange(String(path.parameter), d);
    if (!trials.length)
      return notTested(
        d.type === 'array' && bounded(d.max_items) && d.max_items >= MOST_ITEMS_SENT
          ? `${String(path.parameter)} declares max_items ${d.max_items}: a request of the kit carries at most ${MOST_ITEMS_SENT} items, so none beyond it is tried`
          : `${String(path.parameter)} declares no bound (a min, max, max_items or enum) to go beyond`,
      );
    // The control: the values the descriptor allows are served, or a refusal proves nothing.
    const controls = await Promise.all(inRange(String(path.parameter), d).map(async (t) => ({ t, ex: await tryValue(ctx, path, t) })));
    const whole = refusedWhole(controls, String(path.parameter));
    for (const { t, ex } of controls) {
      const unserved = notServed(ex, false);
      if (unserved === undefined) continue;
      const cut = servedCut(ex, false);
      if (cut) return cut;
      // A field sent beside the value, refused, is its owner's (max_tokens: chat.max-tokens), and so
      // is the parameter refused at every value; otherwise the value refused is parameters.in-range's.
      const owner = refusedFor(ex, ctx.check, [String(path.parameter)])?.others.find((f) => f.owed)?.owner ?? whole?.owner ?? 'parameters.in-range';
      return notTested(`the control ${shown(path, t)} was not served (${unserved}): a refusal proves nothing; see ${owner}`, owner);
    }
    return eachTrial(
      ctx,
      path,
      trials,
      (ex) => {
        const r = refusalOf(ex);
        return r.kind === 'refused' ? undefined : `was not refused: ${r.why}`;
      },
      true,
    );
  },
};

export const PARAMETERS: ApiCheck[] = inSuite('parameters', [inRangeAccepted, outOfRangeRefused]);
