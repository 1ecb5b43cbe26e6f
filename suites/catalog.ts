// Sections 2.5 and 4.3: the public catalog, in the provider-listing schema 2.4 (catalog-2.4.md).
import { catalogRuleViolations } from '../schemas/catalog-rules.js';
import { schemaAt, validator } from '../schemas/index.js';
import { catalog, catalogUnjudged, catalogUrl, declaredParameters, describe, getCatalog, is2xx, modelIds, inSuite, type ApiCheck, type CheckDef } from './api.js';
import { combine, fail, notTested, pass, type Verdict } from '../engine/check.js';
import { bodyJson } from '../engine/exchanges.js';
import type { CheckContext } from '../engine/runner.js';

const validCatalog = validator('catalog');
const validLimit = validator('catalog#/$defs/limit');
const validQuantization = validator('catalog#/$defs/quantization');
const validCompliance = validator('catalog#/$defs/compliance');

type Entry = Record<string, unknown>;

/** The raw document, a not-tested verdict when the catalog is absent where the user did not
 * point, or a fail when it is not there to be read. */
async function catalogDocument(ctx: CheckContext): Promise<{ doc: unknown; verdict?: undefined } | { verdict: Verdict }> {
  const info = await catalog(ctx);
  if (info.notTested) return { verdict: catalogUnjudged(info) };
  const ex = await getCatalog(ctx);
  if (!is2xx(ex)) return { verdict: fail(`GET ${catalogUrl(ctx)} without authentication answered ${describe(ex)}; 4.3: the catalog is public`) };
  const json = bodyJson(ex);
  if (!json.ok) return { verdict: fail(`the catalog is not a JSON document: ${json.error}`) };
  return { doc: json.value };
}

/** Every key's listed models: the primary key's, and the second key's when one is given. */
async function listedModels(ctx: CheckContext): Promise<{ byKey: [string, string[]][]; problems: string[] }> {
  const keys = ctx.target.secondApiKey ? (['primary', 'second'] as const) : (['primary'] as const);
  const lists = await Promise.all(keys.map((k) => modelIds(ctx, k)));
  return {
    byKey: keys.map((k, i) => [k, lists[i].ids]),
    problems: lists.flatMap((l, i) => (l.problem ? [`${keys[i]} key: ${l.problem}`] : [])),
  };
}

/** The entries the per-model rules judge: those of the listed models (every entry when no list is
 * readable). A listed model without an entry is covers-models' business, not theirs. */
async function entriesUnderTest(ctx: CheckContext): Promise<{ entries: [string, Entry][]; problem?: string; owner?: string }> {
  const info = await catalog(ctx);
  if (!info.entries.size) return { entries: [], problem: info.problem ?? 'the catalog lists no model', owner: info.owner };
  const listed = [...new Set((await listedModels(ctx)).byKey.flatMap(([, ids]) => ids))];
  if (!listed.length) return { entries: [...info.entries] };
  const entries = listed.filter((id) => info.entries.has(id)).map((id): [string, Entry] => [id, info.entries.get(id)!]);
  return entries.length ? { entries } : { entries, problem: `none of the listed models (${listed.join(', ')}) has a catalog entry` };
}

/** A rule about the entries under test; without any, not-tested. */
async function onEntries(ctx: CheckContext, rule: (entries: [string, Entry][]) => Verdict): Promise<Verdict> {
  const { entries, problem, owner } = await entriesUnderTest(ctx);
  return problem ? notTested(problem, owner) : rule(entries);
}

/** One rule applied to each entry under test. */
const eachEntry = (ctx: CheckContext, rule: (id: string, entry: Entry) => Verdict) => onEntries(ctx, (entries) => combine(entries.map(([id, entry]) => rule(id, entry))));

type ModalityKey = 'input_modalities' | 'output_modalities';
const modalities = (entry: Entry, key: ModalityKey) => (Array.isArray(entry[key]) ? entry[key] : []).filter((m): m is Entry => !!m && typeof m === 'object');
const textModality = (entry: Entry, key: ModalityKey) => modalities(entry, key).find((m) => m.type === 'text');

/** One rule applied to the text modality (input or output) of each entry under test, which must be
 * there to carry what the rule reads. */
const eachTextModality = (key: ModalityKey, carries: string, rule: (id: string, text: Entry) => Verdict) => (ctx: CheckContext) =>
  eachEntry(ctx, (id, entry) => {
    const text = textModality(entry, key);
    return text ? rule(id, text) : fail(`${id}: no text ${key === 'input_modalities' ? 'input' : 'output'} modality to carry ${carries}`);
  });
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export const available: CheckDef = {
  id: 'catalog.available',
  title: 'GET {site_url}/models.json, without authentication, answers a JSON document',
  section: '4.3',
  level: 'must',
  audit:
    'GETs {site_url}/models.json with no credential: a server that puts the catalog behind auth, or serves an HTML page for it, fails; shown by faults auth-catalog-behind-auth and catalog-not-json.',
  async run(ctx) {
    const got = await catalogDocument(ctx);
    return got.verdict ?? pass();
  },
};

export const status200: CheckDef = {
  id: 'catalog.status-200',
  title: 'The catalog is served with status 200',
  section: '4.3',
  level: 'should',
  audit: "Reads the status of the catalog's GET: a server that serves it with another 2xx (203) fails; shown by fault catalog-status-203.",
  convention: 'The document gives no status code; a successful GET of a document answers 200.',
  async run(ctx) {
    const info = await catalog(ctx);
    if (info.notTested) return catalogUnjudged(info);
    const ex = await getCatalog(ctx);
    return ex.status === 200 ? pass() : fail(`GET ${catalogUrl(ctx)} answered ${describe(ex)}, not 200`);
  },
};

/** The distinct schema_version values the document's entries carry. */
function versionsOf(doc: unknown): string {
  const data = asArray((doc as { data?: unknown })?.data);
  const found = [...new Set(data.map((m) => JSON.stringify((m as Entry)?.schema_version)))].filter((v) => v !== undefined);
  return found.length ? `schema_version ${found.join(', ')}` : 'no schema_version found';
}

const SCHEMA_VERSION = schemaAt('catalog#/$defs/modelDocument/properties/schema_version').const;

export const schema: CheckDef = {
  id: 'catalog.schema',
  title: `The catalog follows the provider-listing schema, version ${SCHEMA_VERSION}`,
  section: '2.5, 9.3',
  level: 'must',
  audit:
    'Validates the whole catalog against schema 2.4 and the rules the schema cannot state (a price type once per qualifiers, UTC windows, min <= max): a document of version 2.3, an unknown precision or an empty price window fails; shown by faults catalog-schema-version-2-3, catalog-quantization-unknown, catalog-utc-window-empty and catalog-min-above-max.',
  async run(ctx) {
    const got = await catalogDocument(ctx);
    if (got.verdict) return got.verdict;
    // The schema's own rules, then those it cannot say (unique prices, UTC windows, min <= max).
    const v = validCatalog(got.doc);
    const broken = [...v.errors, ...catalogRuleViolations(got.doc)];
    const versions = versionsOf(got.doc);
    return broken.length ? fail(`the catalog does not follow schema ${SCHEMA_VERSION} (${versions}): ${broken.join('; ')}`) : pass([versions]);
  },
};

export const coversModels: CheckDef = {
  id: 'catalog.covers-models',
  title: 'Every model a key lists has an entry in the catalog',
  section: '2.5',
  level: 'should',
  audit: 'Looks up in the catalog every model both keys list: a catalog without an entry for a model only the second key lists fails; shown by fault catalog-misses-listed-model.',
  convention: '2.5 says the catalog carries its data "for the models" without saying all; the convention is an entry for every usable model.',
  async run(ctx) {
    const info = await catalog(ctx);
    if (info.problem) return notTested(info.problem, info.owner);
    const { byKey, problems } = await listedModels(ctx);
    if (!byKey.some(([, ids]) => ids.length)) return notTested(problems.join('; ') || 'the model lists are empty');
    const missing = byKey.flatMap(([key, ids]) => ids.filter((id) => !info.entries.has(id)).map((id) => `${id} (listed for the ${key} key)`));
    if (missing.length) return fail(`no catalog entry for ${[...new Set(missing)].join(', ')}`);
    return problems.length ? notTested(problems.join('; ')) : pass();
  },
};

export const pricing: CheckDef = {
  id: 'catalog.pricing',
  title: "Each model's entry carries its pricing (per-token prices in its modalities, per-request prices at its root)",
  section: '2.5',
  level: 'must',
  audit: "Reads each listed model's entry: an entry with no price in its root pricing nor in its modalities fails; shown by fault catalog-no-pricing.",
  run: (ctx) =>
    eachEntry(ctx, (id, entry) => {
      const prices = [entry.pricing, ...modalities(entry, 'input_modalities').map((m) => m.pricing), ...modalities(entry, 'output_modalities').map((m) => m.pricing)]
        .flatMap(asArray)
        .filter((p) => (p as Entry)?.cost_usd !== undefined);
      return prices.length ? pass() : fail(`${id}: no price in its root pricing nor in its modalities' pricing`);
    }),
};

export const contextLength: CheckDef = {
  id: 'catalog.context-length',
  title: "Each model's entry carries its context length (text input: supported_inputs.max_context_length)",
  section: '2.5',
  level: 'must',
  audit: "Reads each listed model's entry: a text input modality without supported_inputs.max_context_length fails; shown by fault catalog-no-context-length.",
  run: eachTextModality('input_modalities', 'the context length', (id, text) => {
    const limit = (text.supported_inputs as Entry | undefined)?.max_context_length;
    if (limit === undefined) return fail(`${id}: the text input modality has no supported_inputs.max_context_length`);
    const v = validLimit(limit);
    return v.ok ? pass() : fail(`${id}: max_context_length is not a {value, unit?} limit: ${v.errors.join('; ')}`);
  }),
};

export const precision: CheckDef = {
  id: 'catalog.precision',
  title: "Each model's entry carries its precision (quantization, null when undeclared)",
  section: '2.5',
  level: 'must',
  audit:
    "Reads each listed model's entry: an entry without quantization, or with one schema 2.4 does not know (fp7), fails; shown by faults catalog-quantization-missing and catalog-quantization-unknown.",
  run: (ctx) =>
    eachEntry(ctx, (id, entry) => {
      if (!('quantization' in entry)) return fail(`${id}: no quantization field (the catalog's precision)`);
      const v = validQuantization(entry.quantization);
      return v.ok ? pass() : fail(`${id}: quantization ${JSON.stringify(entry.quantization)} is not a precision of schema 2.4: ${v.errors.join('; ')}`);
    }),
};

export const precisionDeclared: CheckDef = {
  id: 'catalog.precision-declared',
  title: "Each model's entry declares its precision (quantization is not null)",
  section: '2.5',
  level: 'should',
  audit: "Reads each listed model's entry: quantization null (allowed by the schema) leaves the precision undeclared and fails; shown by fault catalog-quantization-null.",
  convention: "Schema 2.4 allows quantization null when undeclared; 2.5 says the catalog carries each model's precision.",
  run: (ctx) =>
    eachEntry(ctx, (id, entry) =>
      entry.quantization === undefined || entry.quantization === null ? fail(`${id}: quantization is ${entry.quantization === null ? 'null' : 'absent'}: the precision is undeclared`) : pass(),
    ),
};

export const supportedParameters: CheckDef = {
  id: 'catalog.supported-parameters',
  title: "Each model's entry carries its supported parameters (text output: supported_parameters)",
  section: '2.5',
  level: 'must',
  audit: "Reads each listed model's entry: a text output modality without a supported_parameters object fails; shown by fault catalog-no-supported-parameters.",
  run: eachTextModality('output_modalities', 'the supported parameters', (id, text) => {
    const params = text.supported_parameters;
    return params && typeof params === 'object' && !Array.isArray(params)
      ? pass()
      : fail(`${id}: the text output modality's supported_parameters is ${params === undefined ? 'absent' : JSON.stringify(params)}, not an object`);
  }),
};

export const dataHandling: CheckDef = {
  id: 'catalog.data-handling',
  title: "Each model's entry carries its data-handling flags (compliance: boolean flags)",
  section: '2.5',
  level: 'must',
  audit: "Reads each listed model's entry: an entry without compliance flags, or with an empty compliance object, fails; shown by faults catalog-no-compliance and catalog-compliance-empty.",
  run: (ctx) =>
    eachEntry(ctx, (id, entry) => {
      const flags = entry.compliance;
      if (flags === undefined) return fail(`${id}: no compliance object (the catalog's data-handling flags)`);
      const v = validCompliance(flags);
      if (!v.ok) return fail(`${id}: compliance is not an object of boolean flags: ${v.errors.join('; ')}`);
      return Object.keys(flags as object).length ? pass() : fail(`${id}: compliance is empty: no data-handling flag`);
    }),
};

const STOP_MAX = (schemaAt('request#/properties/stop').oneOf as Entry[]).find((s) => s.type === 'array')!.maxItems as number;

export const stopLimit: CheckDef = {
  id: 'catalog.stop-limit',
  title: `A model declares at most ${STOP_MAX} stop sequences (stop.max_items)`,
  section: '2.1, 8',
  level: 'must',
  audit: "Reads stop.max_items of each listed model's entry: a model that declares more than the 4 stop sequences of section 8 fails; shown by fault catalog-stop-max-items-8.",
  run: (ctx) =>
    onEntries(ctx, (entries) => {
      const declaring = entries.filter(([, e]) => declaredParameters(e)?.stop?.max_items !== undefined);
      if (!declaring.length) return notTested('no model under test declares stop.max_items');
      return combine(
        declaring.map(([id, e]) => {
          const n = declaredParameters(e)!.stop.max_items!;
          return typeof n === 'number' && n <= STOP_MAX ? pass() : fail(`${id}: stop.max_items is ${JSON.stringify(n)}; the document allows at most ${STOP_MAX} stop sequences`);
        }),
      );
    }),
};

/** The 2.1 fields whose values the document enumerates. */
const ENUM_FIELDS = ['reasoning_effort', 'service_tier'].map((name) => ({
  name,
  allowed: (schemaAt(`request#/properties/${name}`).enum as unknown[]).filter((v) => v !== null),
}));

export const enumValues: CheckDef = {
  id: 'catalog.enum-values',
  title: `A model declares only values of 2.1 for ${ENUM_FIELDS.map((f) => f.name).join(' and ')}`,
  section: '2.1',
  level: 'must',
  audit: 'Reads the declared values of reasoning_effort and service_tier: a value 2.1 does not list ("extreme") fails; shown by fault catalog-reasoning-effort-extreme.',
  run: (ctx) =>
    onEntries(ctx, (entries) => {
      const verdicts = entries.flatMap(([id, e]) =>
        ENUM_FIELDS.flatMap(({ name, allowed }) => {
          const d = declaredParameters(e)?.[name];
          if (d?.type !== 'enum' || !Array.isArray(d.values)) return [];
          const foreign = d.values.filter((v) => v !== null && !allowed.includes(v));
          return [foreign.length ? fail(`${id}: ${name} declares ${foreign.map((v) => JSON.stringify(v)).join(', ')}, not among ${allowed.join(', ')} (2.1)`) : pass()];
        }),
      );
      return verdicts.length ? combine(verdicts) : notTested(`no model under test declares ${ENUM_FIELDS.map((f) => f.name).join(' or ')} as an enum`);
    }),
};

export const CATALOG: ApiCheck[] = inSuite('catalog', [
  available,
  status200,
  schema,
  coversModels,
  pricing,
  contextLength,
  precision,
  precisionDeclared,
  supportedParameters,
  dataHandling,
  stopLimit,
  enumValues,
]);
