// The paths a rule of the API runs on: streamed and not, and the models under test, chosen one
// per kind from what the key lists and the catalog says (every listed model with --all-models).
import { catalog, cutByKit, declaredParameters, describe, is2xx, listModels, modelIds, sayOk, serverKept, type CatalogInfo } from './api.js';
import { ask } from './ask.js';
import type { Unjudged } from '../engine/check.js';
import type { Axis, AxisPoint, AxisValues } from '../engine/check.js';
import type { CheckContext } from '../engine/runner.js';

/** Streamed and not: a rule that holds for one answer holds for the stream of it. */
export const STREAM: readonly AxisPoint[] = [
  { value: false, label: 'json' },
  { value: true, label: 'stream' },
];
export const STREAM_ONLY: readonly AxisPoint[] = [{ value: true, label: 'stream' }];
/** The paths of a rule that holds streamed and not, whatever the model (a refusal, an error answer). */
export const BOTH_WAYS = { stream: STREAM };

/** The kinds a model can be of, as the catalog tells them: a reasoning model declares
 * reasoning_effort; tools and structured output are declared by their request fields. */
export type Kind = 'chat' | 'reasoning' | 'tools' | 'structured';
const KIND_ORDER: Kind[] = ['chat', 'reasoning', 'tools', 'structured'];

export interface ModelUnderTest {
  id: string;
  kinds: Kind[];
}

export interface ModelsUnderTest {
  models: ModelUnderTest[];
  /** Listed models that were to be tested and that chat answered 404: models.ids-usable's to fail. */
  unusable?: string[];
  problem?: string;
  /** The check whose rule the problem breaks: models.list-shape when the list could not be read. */
  owner?: string;
  /** How they were chosen, said once in the report. */
  note?: string;
}

function kindsOf(params: Record<string, unknown> | undefined): Kind[] {
  if (!params) return [];
  return [
    params.reasoning_effort !== undefined ? 'reasoning' : 'chat',
    ...(params.tools !== undefined ? ['tools' as const] : []),
    ...(params.response_format !== undefined ? ['structured' as const] : []),
  ];
}

/** The models the chat checks run on: --model if given; every listed model with --all-models;
 * else the first listed model of each kind the catalog declares, or, with no catalog entry for
 * any listed model, the first and the last listed. A chosen model that chat answers 404 (a listed id
 * the chat route does not take) is models.ids-usable's failure, not every chat rule's: the next
 * listed model of its kinds stands in for it, and with none, the rules run on the others. */
export function modelsUnderTest(ctx: CheckContext): Promise<ModelsUnderTest> {
  return ctx.memo('models-under-test', async (c) => {
    const cat = await catalog(c);
    if (c.target.models.length) return { models: c.target.models.map((id) => ({ id, kinds: kindsOf(declaredParameters(cat.entries.get(id))) })) };
    const { ids, problem, leftOut, cut } = await modelIds(c, 'primary');
    if (!ids.length) {
      const why = problem ?? (leftOut ? `no model id to send: ${leftOut}` : 'the model list is empty');
      return { models: [], problem: `${why}; name a model with --model`, ...(problem && !cut ? { owner: 'models.list-shape' } : {}) };
    }
    const chosen = await chooseModels(c, cat, ids);
    // Said first: a note is cut at its bound, and the list of models under test may be long.
    return leftOut ? { ...chosen, note: [leftOut, chosen.note].filter(Boolean).join('; ') } : chosen;
  });
}

/** The models under test among the listed `ids`, as modelsUnderTest says. */
async function chooseModels(c: CheckContext, cat: CatalogInfo, ids: readonly string[]): Promise<ModelsUnderTest> {
  const withKinds = (id: string): ModelUnderTest => ({ id, kinds: kindsOf(declaredParameters(cat.entries.get(id))) });
  if (c.target.allModels) return { models: ids.map(withKinds), note: `models under test: all ${ids.length} listed (--all-models)` };
  // Described: an entry that declares what the model takes. One without supported_parameters is
  // catalog.supported-parameters' failure, and must not leave every chat rule without a model.
  const described = ids.map(withKinds).filter((m) => m.kinds.length);
  const usable = usableAmong(c);
  if (!described.length) {
    const ends = await usable([...new Set([ids[0], ids[ids.length - 1]])], ids.map(withKinds));
    const why = cat.problem ?? (ids.some((id) => cat.entries.has(id)) ? 'their entries declare no supported_parameters' : 'no entry');
    return {
      ...ends,
      note: `models under test: ${ends.models.map((m) => m.id).join(' and ') || 'none'}, ${ends.stand.length ? 'listed' : 'the first and the last listed'}, since the catalog describes none of the listed models (${why})${ends.said}; --all-models tests all ${ids.length}`,
    };
  }
  const chosen: ModelUnderTest[] = [];
  for (const kind of KIND_ORDER) {
    const first = described.find((m) => m.kinds.includes(kind));
    if (first && !chosen.includes(first)) chosen.push(first);
  }
  const tested = await usable(
    chosen.map((m) => m.id),
    described,
  );
  const models = tested.models.sort((a, b) => ids.indexOf(a.id) - ids.indexOf(b.id));
  return {
    ...tested,
    models,
    note: `models under test: ${models.map((m) => `${m.id} (${m.kinds.join(', ')})`).join(', ') || 'none'}, one of each kind of the ${ids.length} listed${tested.said}; --all-models tests all of them`,
  };
}

/** Stand-ins a chosen model that chat answers 404 may have, tried in the list's order: each costs a
 * request, and a list of hundreds must not cost hundreds. */
const MOST_STAND_INS = 3;

/** The models of `chosen` that chat serves (anything but a 404, which the rules judge), each that
 * does not replaced by the next listed model of `pool` that shares its kinds and is served. */
const usableAmong =
  (ctx: CheckContext) =>
  async (chosen: readonly string[], pool: readonly ModelUnderTest[]): Promise<Pick<ModelsUnderTest, 'models' | 'unusable' | 'problem' | 'owner'> & { stand: string[]; said: string }> => {
    const notFound = async (id: string) => (await ask(ctx, { model: id }, sayOk(id), 'plain chat with the primary key')).status === 404;
    const models: ModelUnderTest[] = [];
    const unusable: string[] = [];
    const stand: string[] = [];
    const missing: string[] = [];
    let tries = 0;
    for (const id of chosen) {
      if (!(await notFound(id))) {
        models.push(pool.find((m) => m.id === id)!);
        continue;
      }
      unusable.push(id);
      const kinds = pool.find((m) => m.id === id)!.kinds;
      let standIn: ModelUnderTest | undefined;
      for (const m of pool) {
        if (tries >= MOST_STAND_INS) break;
        if (chosen.includes(m.id) || models.includes(m) || unusable.includes(m.id) || !kinds.every((k) => m.kinds.includes(k))) continue;
        tries++;
        if (!(await notFound(m.id))) {
          standIn = m;
          break;
        }
        unusable.push(m.id);
      }
      if (standIn) {
        models.push(standIn);
        stand.push(`${standIn.id} in place of ${id}`);
      } else missing.push(`none in place of ${id}`);
    }
    const said = unusable.length ? ` (${[...stand, ...missing].join(', ')}: chat answers 404 to ${unusable.join(', ')}, which the list names; see models.ids-usable)` : '';
    return {
      models,
      stand,
      said,
      ...(unusable.length ? { unusable } : {}),
      ...(!models.length && unusable.length ? { problem: `chat answers 404 to every listed model tried (${unusable.join(', ')})`, owner: 'models.ids-usable' } : {}),
    };
  };

const points = (list: ModelsUnderTest, keep: (m: ModelUnderTest) => boolean = () => true, why?: string): AxisValues => {
  const kept = list.models.filter(keep);
  return {
    points: kept.map((m) => ({ value: m.id, label: m.id })),
    problem: list.problem ?? (list.models.length && !kept.length ? why : undefined),
    ...(list.problem && list.owner ? { blockedBy: list.owner } : {}),
    note: list.note,
  };
};

/** Each model under test. */
export const MODELS: Axis<CheckContext> = async (ctx) => points(await modelsUnderTest(ctx));

/** The models under test that may take an optional request field: those whose catalog entry
 * declares it, and those the catalog does not describe (for tools and response_format their answer
 * tells: a refusal leaves the path not-tested). */
export const modelsTaking =
  (field: OptionalField): Axis<CheckContext> =>
  async (ctx) => {
    const [list, cat] = await Promise.all([modelsUnderTest(ctx), catalog(ctx)]);
    return points(list, (m) => mayTake(cat.entries.get(m.id), field), `no model under test declares ${field} in the catalog`);
  };

type OptionalField = 'tools' | 'response_format' | 'stop';

const mayTake = (entry: Record<string, unknown> | undefined, field: OptionalField) => {
  const params = declaredParameters(entry);
  return !params || field in params;
};

/** Whether a model may take an optional field, as modelsTaking decides it. */
export const takes = async (ctx: CheckContext, model: string, field: OptionalField) => mayTake((await catalog(ctx)).entries.get(model), field);

/** The listed models a check tries by name: the first, the last and the models under test (every
 * listed one with --all-models), with a note of how many of how many. */
export const LISTED: Axis<CheckContext> = async (ctx) => {
  const [{ ids, problem, leftOut, cut }, under] = await Promise.all([modelIds(ctx, 'primary'), modelsUnderTest(ctx)]);
  if (!ids.length) return { points: [], problem: problem ?? (leftOut ? `no model id to send: ${leftOut}` : 'the model list is empty'), ...(problem && !cut ? { blockedBy: 'models.list-shape' } : {}) };
  const tried = ctx.target.allModels ? ids : ids.filter((id, i) => i === 0 || i === ids.length - 1 || under.models.some((m) => m.id === id) || under.unusable?.includes(id));
  return {
    points: tried.map((id) => ({ value: id, label: id })),
    note: `models.ids-usable tried ${tried.length} of the ${ids.length} listed models${tried.length < ids.length ? ' (the first, the last and one of each kind; --all-models tries every one)' : ''}${leftOut ? `; ${leftOut}` : ''}`,
  };
};

/** Whether the primary key is served at all (a plain request to the first model under test, or the
 * model list when no model is known): without that, a refusal or a 4xx proves nothing. `unjudged`:
 * the plain request was turned away or not answered, the server's doing (the list has its owner). */
export function baseline(ctx: CheckContext): Promise<{ model?: string; problem?: string; owner?: string; unjudged?: Exclude<Unjudged, 'flaky-owner'> }> {
  return ctx.memo('baseline', async (c) => {
    const { models } = await modelsUnderTest(c);
    if (!models.length) {
      const ex = await listModels(c);
      if (is2xx(ex)) return {};
      const cut = cutByKit(ex);
      return cut
        ? { problem: `with the primary key, GET /v1/models: ${cut}`, unjudged: 'cut' }
        : { problem: `with the primary key, GET /v1/models answered ${describe(ex)}`, owner: 'models.list-shape' };
    }
    const model = models[0].id;
    const ex = await ask(c, { model }, sayOk(model), 'plain chat with the primary key');
    if (is2xx(ex)) return { model };
    const unjudged = serverKept(ex);
    // A cut is the kit's: its words name the option that lets the answer through.
    const cut = cutByKit(ex);
    return { model, problem: `with the primary key, a plain chat request to ${model}${cut ? `: ${cut}` : ` answered ${describe(ex)}`}`, ...(unjudged ? { unjudged } : {}) };
  });
}
