// Faults of the public catalog (2.5, 4.3): its route, its status, its body, and each model's entry.
import type { Fault } from './fault.js';
import { isCatalog, withJson } from './rewrite.js';

// Only the catalog's 200 is bent; the other routes, and a refusal of the catalog, stay as they are.
type Reply = NonNullable<Fault['reply']>;
const onCatalog =
  (edit: (doc: any) => unknown): Reply =>
  (r, req) =>
    isCatalog(req) && 'status' in r && r.status === 200 ? withJson(r, edit) : r;
const eachEntry = (edit: (entry: any) => void): Reply => onCatalog((doc) => void doc.data.forEach(edit));
const textOutput = (entry: any) => entry.output_modalities.find((o: any) => o.type === 'text');

export const CATALOG_FAULTS: Fault[] = [
  {
    name: 'catalog-not-json',
    description: 'The catalog is served as an HTML page, not a JSON document',
    fails: ['catalog.available', 'catalog.schema', 'auth.catalog-public'],
    reply: (r, req) => (isCatalog(req) && 'status' in r && r.status === 200 ? { status: 200, headers: { 'content-type': 'text/html' }, body: '<html><body>Our models</body></html>' } : r),
  },
  {
    name: 'catalog-status-203',
    description: 'The catalog is served with status 203 instead of 200',
    fails: ['catalog.status-200'],
    reply: (r, req) => (isCatalog(req) && 'body' in r && r.status === 200 ? { ...r, status: 203 } : r),
  },
  {
    name: 'catalog-schema-version-2-3',
    description: 'Every entry says schema_version "2.3" instead of "2.4"',
    fails: ['catalog.schema'],
    reply: eachEntry((m) => (m.schema_version = '2.3')),
  },
  {
    name: 'catalog-misses-listed-model',
    description: 'The catalog has no entry for the models only the second key lists',
    fails: ['catalog.covers-models'],
    reply: (r, req, ctx) => {
      const primary = new Set(ctx.config.keys[0]?.models ?? []);
      const others = new Set(ctx.config.keys.slice(1).flatMap((k) => k.models.filter((id) => !primary.has(id))));
      return onCatalog((doc) => void (doc.data = doc.data.filter((m: any) => !others.has(m.id))))(r, req, ctx);
    },
  },
  {
    name: 'catalog-no-pricing',
    description: 'Entries carry no price: no root pricing, and none in their modalities',
    fails: ['catalog.pricing'],
    reply: eachEntry((m) => {
      delete m.pricing;
      for (const mod of [...m.input_modalities, ...m.output_modalities]) delete mod.pricing;
    }),
  },
  {
    name: 'catalog-no-context-length',
    description: 'The text input modality has no supported_inputs.max_context_length',
    fails: ['catalog.context-length'],
    reply: eachEntry((m) => void delete m.input_modalities.find((i: any) => i.type === 'text').supported_inputs.max_context_length),
  },
  {
    name: 'catalog-quantization-missing',
    description: 'Entries have no quantization field (the precision)',
    fails: ['catalog.precision', 'catalog.precision-declared'],
    reply: eachEntry((m) => void delete m.quantization),
  },
  {
    name: 'catalog-quantization-null',
    description: 'Entries say quantization: null, leaving the precision undeclared',
    fails: ['catalog.precision-declared'],
    reply: eachEntry((m) => (m.quantization = null)),
  },
  {
    name: 'catalog-quantization-unknown',
    description: 'Entries say quantization: "fp7", a precision schema 2.4 does not know',
    fails: ['catalog.schema', 'catalog.precision'],
    reply: eachEntry((m) => (m.quantization = 'fp7')),
  },
  {
    name: 'catalog-no-supported-parameters',
    description: 'The text output modality carries no supported_parameters',
    fails: ['catalog.schema', 'catalog.supported-parameters'],
    reply: eachEntry((m) => void delete textOutput(m).supported_parameters),
  },
  {
    name: 'catalog-no-compliance',
    description: 'Entries carry no compliance object (the data-handling flags)',
    fails: ['catalog.data-handling'],
    reply: eachEntry((m) => void delete m.compliance),
  },
  {
    name: 'catalog-compliance-empty',
    description: 'Entries carry an empty compliance object: no data-handling flag',
    fails: ['catalog.data-handling'],
    reply: eachEntry((m) => (m.compliance = {})),
  },
  {
    name: 'catalog-stop-max-items-8',
    description: 'Models declare stop.max_items 8, beyond the 4 stop sequences the document allows',
    fails: ['parameters.in-range', 'catalog.stop-limit'],
    reply: eachEntry((m) => {
      const stop = textOutput(m).supported_parameters?.stop;
      if (stop) stop.max_items = 8;
    }),
  },
  {
    name: 'catalog-reasoning-effort-extreme',
    description: 'Reasoning models declare reasoning_effort "extreme", a value the request does not know',
    fails: ['parameters.in-range', 'catalog.enum-values'],
    reply: eachEntry((m) => {
      const effort = textOutput(m).supported_parameters?.reasoning_effort;
      if (Array.isArray(effort?.values)) effort.values.push('extreme');
    }),
  },
  {
    name: 'catalog-utc-window-empty',
    description: 'A price carries a UTC window that ends where it starts (utc_start 900, utc_end 900)',
    fails: ['catalog.schema'],
    reply: eachEntry((m) => void Object.assign(textOutput(m).pricing[0], { utc_start: 900, utc_end: 900 })),
  },
  {
    name: 'catalog-utc-minutes-75',
    description: 'A price carries a UTC window whose start has 75 minutes (utc_start 1275)',
    fails: ['catalog.schema'],
    reply: eachEntry((m) => void Object.assign(textOutput(m).pricing[0], { utc_start: 1275, utc_end: 1400 })),
  },
  {
    name: 'catalog-price-type-twice',
    description: 'An output modality prices completion twice, with the same qualifiers',
    fails: ['catalog.schema'],
    reply: eachEntry((m) => void textOutput(m).pricing.push({ ...textOutput(m).pricing[0], cost_usd: '1' })),
  },
  {
    name: 'catalog-min-above-max',
    description: 'max_tokens is declared with min 1,000,000, above its max: the kit, keeping to the declared minimum, is refused',
    fails: ['chat.max-tokens', 'parameters.in-range', 'catalog.schema'],
    reply: eachEntry((m) => void (textOutput(m).supported_parameters.max_tokens.min = 1_000_000)),
  },
];
