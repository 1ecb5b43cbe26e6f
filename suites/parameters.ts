// Sections 2.1 and 8: "Per-model parameter support and ranges: declared in the public catalog".
// The values tried come from each model's catalog entry, never from this file.
import { catalog, chat, declaredParameters, describe, is2xx, is4xx, modelsUnderTest, type ApiCheck, type ParameterDescriptor } from './api.js';
import { combine, fail, notTested, pass, type Verdict } from './harness/check.js';
import type { CheckContext } from './harness/runner.js';

/** Fields that change what the response is (a stream, several choices, tool calls, structured
 * output) or are refused without a companion field: they have suites of their own. */
const NOT_ALONE = new Set(['tools', 'tool_choice', 'parallel_tool_calls', 'response_format', 'stream', 'stream_options', 'n', 'top_logprobs', 'model', 'messages']);

const MESSAGES = [{ role: 'user', content: 'Say OK.' }];
/** Enough for a short answer, little enough to cost nothing. */
const SMALL_MAX_TOKENS = 16;
const STOP_ITEM = '###';
const NOT_A_VALUE = 'conformance-invalid';

const clamp = (v: number, d: ParameterDescriptor) => Math.min(Math.max(v, d.min ?? -Infinity), d.max ?? Infinity);
const bounded = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n);

/** The smallest declared max_tokens of at least 16, so that every request stays short. */
const maxTokensFor = (params: Record<string, ParameterDescriptor>) =>
  params.max_tokens?.type === 'integer' ? clamp(SMALL_MAX_TOKENS, params.max_tokens) : SMALL_MAX_TOKENS;

/** The same body for the same value, so that checks (and models.ids-usable) share answers. */
const bodyWith = (model: string, params: Record<string, ParameterDescriptor>, name: string, value: unknown) => ({
  model,
  messages: MESSAGES,
  max_tokens: maxTokensFor(params),
  [name]: value,
});

interface Trial {
  name: string;
  value: unknown;
  /** Why the value is in or out of the declared range, for messages. */
  why: string;
}

function inRange(name: string, d: ParameterDescriptor): Trial[] {
  switch (d.type) {
    case 'range': {
      const value = bounded(d.min) && bounded(d.max) ? (d.min + d.max) / 2 : bounded(d.min) ? d.min : bounded(d.max) ? d.max : bounded(d.default) ? d.default : undefined;
      return value === undefined ? [] : [{ name, value, why: `within [${d.min ?? ''}, ${d.max ?? ''}]` }];
    }
    case 'integer': {
      if ((bounded(d.min) && !Number.isInteger(d.min)) || (bounded(d.max) && !Number.isInteger(d.max))) return [];
      return [{ name, value: clamp(SMALL_MAX_TOKENS, d), why: `within [${d.min ?? ''}, ${d.max ?? ''}]` }];
    }
    case 'enum':
      return Array.isArray(d.values) ? d.values.filter((v) => v !== null).map((value) => ({ name, value, why: 'a declared value' })) : [];
    case 'array':
      // Only stop's items are known; other arrays have no item the kit could make up.
      return name === 'stop' && (d.max_items === undefined || d.max_items >= 1) ? [{ name, value: [STOP_ITEM], why: 'one item' }] : [];
    case 'boolean':
      return [{ name, value: true, why: 'a boolean' }];
    default:
      return [];
  }
}

function outOfRange(name: string, d: ParameterDescriptor): Trial[] {
  switch (d.type) {
    case 'range':
    case 'integer':
      return [
        ...(bounded(d.max) ? [{ name, value: d.max + 1, why: `above the declared max ${d.max}` }] : []),
        ...(bounded(d.min) ? [{ name, value: d.min - 1, why: `below the declared min ${d.min}` }] : []),
      ];
    case 'enum':
      return Array.isArray(d.values) && !d.values.includes(NOT_A_VALUE) ? [{ name, value: NOT_A_VALUE, why: `not among ${d.values.map((v) => JSON.stringify(v)).join(', ')}` }] : [];
    case 'array':
      return name === 'stop' && bounded(d.max_items)
        ? [{ name, value: Array.from({ length: d.max_items + 1 }, (_, i) => `${STOP_ITEM}${i + 1}`), why: `more than the declared max_items ${d.max_items}` }]
        : [];
    default:
      return [];
  }
}

const show = (t: Trial) => `${t.name}=${JSON.stringify(t.value)}`;

/** Each model under test with its declared parameters, or why it cannot be tried. */
async function subjects(ctx: CheckContext): Promise<{ model: string; params?: Record<string, ParameterDescriptor>; problem?: string }[] | string> {
  const info = await catalog(ctx);
  if (info.problem) return info.problem;
  const { models, problem } = await modelsUnderTest(ctx);
  if (!models.length) return problem ?? 'no model to test';
  return models.map((model) => {
    const entry = info.entries.get(model);
    if (!entry) return { model, problem: `${model} has no catalog entry` };
    const params = declaredParameters(entry);
    return params ? { model, params } : { model, problem: `${model}'s catalog entry declares no supported_parameters` };
  });
}

/** Sends each trial of each model under test and judges the answer. */
async function tryEach(
  ctx: CheckContext,
  trialsOf: (name: string, d: ParameterDescriptor) => Trial[],
  judge: (model: string, t: Trial, ex: Awaited<ReturnType<typeof chat>>) => Verdict,
  noTrial: string,
): Promise<Verdict> {
  const all = await subjects(ctx);
  if (typeof all === 'string') return notTested(all);
  const verdicts = await Promise.all(
    all.map(async ({ model, params, problem }) => {
      if (!params) return notTested(problem!);
      const trials = Object.entries(params)
        .filter(([name, d]) => !NOT_ALONE.has(name) && d && typeof d === 'object')
        .flatMap(([name, d]) => trialsOf(name, d));
      if (!trials.length) return notTested(`${model}: ${noTrial}`);
      const answers = await Promise.all(trials.map((t) => chat(ctx, bodyWith(model, params, t.name, t.value), { label: `${show(t)} (${t.why}) on ${model}` })));
      return combine(trials.map((t, i) => judge(model, t, answers[i])));
    }),
  );
  return combine(verdicts);
}

export const inRangeAccepted: ApiCheck = {
  id: 'parameters.in-range',
  suite: 'parameters',
  title: 'A parameter the catalog declares for a model is accepted at a value inside its declared range',
  section: '8',
  level: 'must',
  run: (ctx) =>
    tryEach(
      ctx,
      inRange,
      (model, t, ex) => (is2xx(ex) ? pass() : fail(`${model}: ${show(t)} (${t.why}) was refused: ${describe(ex)}`)),
      'declares no parameter that can be tried on its own',
    ),
};

export const outOfRangeRefused: ApiCheck = {
  id: 'parameters.out-of-range',
  suite: 'parameters',
  title: 'A value outside the range the catalog declares for a model is refused with a 4xx',
  section: '8, 7',
  level: 'should',
  convention: 'What the service does with a value outside a declared range is not shown; the convention is a 4xx refusal.',
  run: (ctx) =>
    tryEach(
      ctx,
      outOfRange,
      (model, t, ex) => (is4xx(ex) ? pass() : fail(`${model}: ${show(t)} (${t.why}) answered ${describe(ex)}, not a 4xx refusal`)),
      'declares no bounded parameter (a min, max, max_items or enum) that can be tried on its own',
    ),
};

export const PARAMETERS: ApiCheck[] = [inRangeAccepted, outOfRangeRefused];
