// Section 2.4 and 4.2: the model list and its models.
import { schemaAt, validator } from '../schemas/index.js';
import { cutShort, describe, is2xx, isUnixSeconds, listModels, sayOk, inSuite, type ApiCheck, type CheckDef } from './api.js';
import { ask } from './ask.js';
import { cutOf, notServed, servedCut } from './answer.js';
import { failIfAny, fail, pass, type Verdict } from '../engine/check.js';
import { LISTED } from './paths.js';
import { bodyJson } from '../engine/exchanges.js';
import type { CheckContext } from '../engine/runner.js';

const validList = validator('models');

type ListBody = { object?: unknown; data?: unknown };

/** A rule about the list body, naming what is wrong with it; without a body (refused, cut, not
 * JSON), the rule fails with why. */
const onList =
  (wrong: (body: ListBody) => string[]) =>
  async (ctx: CheckContext): Promise<Verdict> => {
    const ex = await listModels(ctx);
    const kit = cutOf(ex);
    if (kit && (ex.status === undefined || is2xx(ex))) return kit;
    if (!is2xx(ex)) return fail(`GET /v1/models answered ${describe(ex)}`);
    const cut = cutShort(ex);
    if (cut) return fail(cut);
    const json = bodyJson(ex);
    return json.ok ? failIfAny(wrong(json.value as ListBody)) : fail(json.error);
  };

const listedModels = (body: { data?: unknown }) => (Array.isArray(body.data) ? body.data : []) as Record<string, unknown>[];

export const listShape: CheckDef = {
  id: 'models.list-shape',
  title: 'GET /v1/models answers a model list: object, data[], each model with id, object, created, owned_by',
  section: '2.4',
  level: 'must',
  audit:
    'Validates GET /v1/models with the key against the 2.4 schema: a list whose models lack owned_by, or whose object is not "list", fails; shown by faults models-owned-by-missing and models-object-models.',
  run: onList((body) => {
    const v = validList(body);
    return v.ok ? [] : [`the model list does not match 2.4: ${v.errors.join('; ')}`];
  }),
};

const LIST_OBJECT = schemaAt('models#/properties/object').const;
const MODEL_OBJECT = schemaAt('models#/$defs/model/properties/object').const;

export const objectConstants: CheckDef = {
  id: 'models.object-constants',
  title: `The list's object is "${LIST_OBJECT}" and each model's object is "${MODEL_OBJECT}"`,
  section: '2.4',
  level: 'must',
  audit: 'Reads GET /v1/models: a list whose object is not "list", or a model whose object is not "model" ("engine"), fails; shown by faults models-object-models and models-model-object-wrong.',
  run: onList((body) => [
    ...(body.object !== LIST_OBJECT ? [`object is ${JSON.stringify(body.object)}, not "${LIST_OBJECT}"`] : []),
    ...listedModels(body).flatMap((m, i) => (m?.object !== MODEL_OBJECT ? [`data[${i}].object is ${JSON.stringify(m?.object)}, not "${MODEL_OBJECT}"`] : [])),
  ]),
};

export const createdSeconds: CheckDef = {
  id: 'models.created-seconds',
  title: "Each model's created is a Unix time in seconds",
  section: '2.4',
  level: 'should',
  audit: "Reads each listed model's created: a server that gives milliseconds fails; shown by fault models-created-milliseconds.",
  convention: 'The document says "creation time" without a unit; the convention is Unix seconds.',
  run: onList((body) =>
    listedModels(body)
      .filter((m) => typeof m?.created === 'number' && !isUnixSeconds(m.created))
      .map((m) => `${String(m.id)}: created ${m.created} is not in seconds`),
  ),
};

export const uniqueIds: CheckDef = {
  id: 'models.unique-ids',
  title: 'No model id is listed twice',
  section: '2.4',
  level: 'should',
  audit: 'Reads the ids of GET /v1/models: a list that repeats a model fails; shown by fault models-duplicate-id.',
  convention: 'An id names one model; a list that repeats it is ambiguous.',
  run: onList((body) => {
    const seen = new Set<unknown>();
    const twice = new Set<unknown>();
    for (const m of listedModels(body)) (seen.has(m?.id) ? twice : seen).add(m?.id);
    return twice.size ? [`listed more than once: ${[...twice].map((id) => JSON.stringify(id)).join(', ')}`] : [];
  }),
};

export const idsUsable: CheckDef = {
  id: 'models.ids-usable',
  title: 'A listed id is accepted in the model field of a chat completion, with the same key, and answered',
  section: '2.4, 4.2',
  level: 'must',
  audit:
    'Sends "Say OK." with the same key to the first and the last listed model and to each model under test (every listed one with --all-models): a server that lists a model the key cannot use refuses it; shown by fault models-lists-unusable-model.',
  // A hosted service may list hundreds of models and bill each request: by default the first, the
  // last and one of each kind; --all-models tries every one.
  paths: { model: LISTED },
  async run(ctx, path) {
    // Accepted and answered: the answer's fields are the response checks' to judge.
    const ex = await ask(ctx, path, sayOk(path.model!), `chat with listed model ${path.model}`);
    const unserved = notServed(ex, false);
    // A body the kit cut does not say it was not served.
    if (unserved !== undefined && servedCut(ex, false)) return servedCut(ex, false)!;
    return unserved === undefined ? pass() : fail(`listed model ${path.model} was not served: ${unserved}`);
  },
};

export const MODELS: ApiCheck[] = inSuite('models', [listShape, objectConstants, createdSeconds, uniqueIds, idsUsable]);
