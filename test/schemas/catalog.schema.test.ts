// The catalog schema (catalog-2.4.md): compiles under strict ajv, takes a realistic document, and
// rejects each single deviation from the facts of catalog-2.4.md.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { catalogRuleViolations } from '../../schemas/catalog-rules.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020) => void;

const readJson = (rel: string): Json => JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8'));
const schema = readJson('../../schemas/catalog.schema.json');
const valid = readJson('../fixtures/catalog.valid.json');

function compile() {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats(ajv);
  ajv.addKeyword({ keyword: 'x-section', schemaType: 'string' });
  ajv.addSchema(schema);
  return ajv;
}

const ajv = compile();
const validate = ajv.getSchema('https://conformance.local/schemas/catalog.schema.json')!;
const clone = (): Json => structuredClone(valid);
const errorsOf = (doc: unknown) => (validate(doc) ? [] : (validate.errors ?? []));

const chat = (d: Json) => d.data[0];
const reason = (d: Json) => d.data[1];
const chatParams = (d: Json) => chat(d).output_modalities[0].supported_parameters;

describe('catalog schema', () => {
  it('compiles under strict mode with the x-section annotation keyword', () => {
    expect(() => compile()).not.toThrow();
    expect(schema.$id).toBe('https://conformance.local/schemas/catalog.schema.json');
    for (const name of ['modelDocument', 'inputModality', 'outputModality', 'inputPricingEntry', 'outputPricingEntry', 'requestPricingEntry', 'parameterDescriptor', 'compliance']) {
      expect(schema.$defs[name], name).toBeTypeOf('object');
    }
  });

  it('accepts the full valid fixture (a chat model and a reasoning model)', () => {
    expect(errorsOf(valid)).toEqual([]);
    expect(valid.data).toHaveLength(2);
  });

  it('exposes $defs/modelDocument for other code', () => {
    const model = ajv.getSchema('https://conformance.local/schemas/catalog.schema.json#/$defs/modelDocument')!;
    expect(model(valid.data[0])).toBe(true);
    expect(model(valid.data[1])).toBe(true);
    expect(model({ schema_version: '2.4', id: 'x', name: 'x', input_modalities: [], output_modalities: [] })).toBe(false);
  });

  it('accepts other documented shapes: media inputs, web search, overrides, date-time deprecation, other outputs', () => {
    const d = clone();
    chat(d).input_modalities.push(
      {
        type: 'image',
        supported_inputs: {
          sources: { type: 'enum', values: ['url', 'base64'] },
          formats: { type: 'enum', values: ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] },
          max_size: { value: 20971520, unit: 'byte' },
          max_images: 10,
        },
        pricing: [{ type: 'prompt', unit: 'image', cost_usd: '0.001' }],
      },
      {
        type: 'audio',
        supported_inputs: {
          sources: { type: 'enum', values: ['base64'] },
          formats: { type: 'enum', values: ['audio/wav', 'audio/mpeg'] },
          max_duration: { value: 600, unit: 'second' },
        },
        pricing: [{ type: 'prompt', unit: 'second', cost_usd: '0.0001' }],
      },
    );
    chat(d).pricing.push({ type: 'web_search', unit: 'search', cost_usd: '0.01' });
    chat(d).capacity.push({ type: 'web_search', unit: 'search', per: 'day', value: 10000 });
    chat(d).output_modalities[0].pricing[0].overrides = [{ when: { prompt_tokens_gt: 200000 }, cost_usd: '0.000003' }];
    chat(d).output_modalities.push({ type: 'embeddings', supported_parameters: {} });
    chat(d).passthrough_parameters = { top_k: { type: 'integer', min: 1 } };
    reason(d).deprecation_date = '2026-12-31T00:00:00Z';
    expect(errorsOf(d)).toEqual([]);
  });

  const deviations: [string, (d: Json) => void, string][] = [
    [
      'schema_version "2.3"',
      (d) => {
        chat(d).schema_version = '2.3';
      },
      '/data/0/schema_version',
    ],
    [
      'missing name',
      (d) => {
        delete reason(d).name;
      },
      '/data/1',
    ],
    [
      'extra top-level property of a model document',
      (d) => {
        chat(d).context_length = 131072;
      },
      '/data/0',
    ],
    [
      'quantization "fp7"',
      (d) => {
        chat(d).quantization = 'fp7';
      },
      '/data/0/quantization',
    ],
    [
      'cost_usd as a number',
      (d) => {
        chat(d).input_modalities[0].pricing[0].cost_usd = 0.0000005;
      },
      '/data/0/input_modalities/0/pricing/0/cost_usd',
    ],
    [
      'cost_usd "-1"',
      (d) => {
        chat(d).output_modalities[0].pricing[0].cost_usd = '-1';
      },
      '/data/0/output_modalities/0/pricing/0/cost_usd',
    ],
    [
      'utc_start without utc_end',
      (d) => {
        delete reason(d).input_modalities[0].pricing[1].utc_end;
      },
      '/data/1/input_modalities/0/pricing/1',
    ],
    [
      'utc_end above 2359',
      (d) => {
        reason(d).input_modalities[0].pricing[1].utc_end = 2400;
      },
      '/data/1/input_modalities/0/pricing/1/utc_end',
    ],
    [
      'ttl_seconds on a prompt entry',
      (d) => {
        chat(d).input_modalities[0].pricing[0].ttl_seconds = 300;
      },
      '/data/0/input_modalities/0/pricing/0',
    ],
    [
      'input pricing type on an output entry',
      (d) => {
        chat(d).output_modalities[0].pricing[0].type = 'prompt';
      },
      '/data/0/output_modalities/0/pricing/0/type',
    ],
    [
      'web_search priced per request',
      (d) => {
        chat(d).pricing[0] = { type: 'web_search', unit: 'request', cost_usd: '0.01' };
      },
      '/data/0/pricing/0/unit',
    ],
    [
      'enum descriptor without values',
      (d) => {
        delete chatParams(d).service_tier.values;
      },
      '/data/0/output_modalities/0/supported_parameters/service_tier',
    ],
    [
      'range descriptor with values',
      (d) => {
        chatParams(d).temperature.values = [0, 1, 2];
      },
      '/data/0/output_modalities/0/supported_parameters/temperature',
    ],
    [
      'boolean descriptor with min',
      (d) => {
        chatParams(d).logprobs = { type: 'boolean', min: 0 };
      },
      '/data/0/output_modalities/0/supported_parameters/logprobs',
    ],
    [
      'object descriptor without properties',
      (d) => {
        chatParams(d).response_format = { type: 'object' };
      },
      '/data/0/output_modalities/0/supported_parameters/response_format',
    ],
    [
      'descriptor type "string"',
      (d) => {
        chatParams(d).user = { type: 'string' };
      },
      '/data/0/output_modalities/0/supported_parameters/user/type',
    ],
    [
      'unit "furlong"',
      (d) => {
        chatParams(d).max_tokens.unit = 'furlong';
      },
      '/data/0/output_modalities/0/supported_parameters/max_tokens/unit',
    ],
    [
      'compliance value a string',
      (d) => {
        chat(d).compliance.zdr = 'yes';
      },
      '/data/0/compliance/zdr',
    ],
    [
      'datacenter country_code "usa"',
      (d) => {
        chat(d).datacenters[0].country_code = 'usa';
      },
      '/data/0/datacenters/0/country_code',
    ],
    [
      'discount_to_user 1',
      (d) => {
        reason(d).discount_to_user = 1;
      },
      '/data/1/discount_to_user',
    ],
    [
      'openrouter with an extra key',
      (d) => {
        chat(d).openrouter.name = 'Acme Chat Large';
      },
      '/data/0/openrouter',
    ],
    [
      'deprecation_date without Z',
      (d) => {
        reason(d).deprecation_date = '2026-12-31T00:00:00+01:00';
      },
      '/data/1/deprecation_date',
    ],
    [
      'no input modality',
      (d) => {
        chat(d).input_modalities = [];
      },
      '/data/0/input_modalities',
    ],
    [
      'output modality without supported_parameters',
      (d) => {
        delete reason(d).output_modalities[0].supported_parameters;
      },
      '/data/1/output_modalities/0',
    ],
    [
      'extra key on an input modality',
      (d) => {
        chat(d).input_modalities[0].max_tokens = 10;
      },
      '/data/0/input_modalities/0',
    ],
    [
      'max_context_length value 0',
      (d) => {
        chat(d).input_modalities[0].supported_inputs.max_context_length.value = 0;
      },
      '/data/0/input_modalities/0/supported_inputs/max_context_length/value',
    ],
    [
      'image format image/bmp',
      (d) => {
        chat(d).input_modalities.push({ type: 'image', supported_inputs: { formats: { type: 'enum', values: ['image/bmp'] } } });
      },
      '/data/0/input_modalities/1/supported_inputs/formats/values/0',
    ],
    [
      'concurrency capacity with a window',
      (d) => {
        chat(d).capacity[1].per = 'minute';
      },
      '/data/0/capacity/1/per',
    ],
    [
      'utc_start with minutes above 59',
      (d) => {
        reason(d).input_modalities[0].pricing[1].utc_start = 1275;
      },
      '/data/1/input_modalities/0/pricing/1/utc_start',
    ],
  ];

  it.each(deviations)('rejects %s', (_name, mutate, path) => {
    const d = clone();
    mutate(d);
    const errors = errorsOf(d);
    expect(errors.length).toBeGreaterThan(0);
    // The rejection comes from the deviation, not from elsewhere in the document.
    for (const e of errors) expect(e.instancePath.startsWith('/data/')).toBe(true);
    expect(
      errors.some((e) => e.instancePath === path || e.instancePath.startsWith(`${path}/`)),
      JSON.stringify(errors, null, 1),
    ).toBe(true);
  });

  // What catalog-2.4.md does not state, a catalog may do: the schema holds it to no more.
  const latitudes: [string, (d: Json) => void][] = [
    [
      'a limit in a unit of its own',
      (d) => {
        chat(d).input_modalities[0].supported_inputs.max_context_length.unit = 'tokens';
      },
    ],
    [
      'enum values repeated',
      (d) => {
        chatParams(d).service_tier.values = ['flex', 'flex'];
      },
    ],
    [
      'enum values empty',
      (d) => {
        chatParams(d).service_tier.values = [];
      },
    ],
    [
      'an integer descriptor with a fractional bound',
      (d) => {
        chatParams(d).max_tokens.max = 4096.5;
      },
    ],
    [
      'max_items 0',
      (d) => {
        chatParams(d).stop.max_items = 0;
      },
    ],
    [
      'a capacity of 0',
      (d) => {
        chat(d).capacity[1].value = 0;
      },
    ],
    [
      'a media format that is not a MIME type',
      (d) => {
        chat(d).input_modalities.push({ type: 'audio', supported_inputs: { formats: { type: 'enum', values: ['wav'] } } });
      },
    ],
    [
      'utc_start 2359',
      (d) => {
        reason(d).input_modalities[0].pricing[1].utc_start = 2359;
      },
    ],
  ];

  it.each(latitudes)('accepts %s', (_name, mutate) => {
    const d = clone();
    mutate(d);
    expect(errorsOf(d)).toEqual([]);
  });

  it('gives every property an x-section annotation', () => {
    const missing: string[] = [];
    const schemaKeys = ['items', 'additionalProperties', 'propertyNames', 'not', 'if', 'then', 'else', 'contains', 'unevaluatedProperties', 'unevaluatedItems'];
    const schemaLists = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
    const schemaMaps = ['$defs', 'dependentSchemas', 'patternProperties'];
    let count = 0;
    function walk(node: unknown, path: string): void {
      if (!node || typeof node !== 'object') return;
      const s = node as Record<string, unknown>;
      const props = s.properties as Record<string, unknown> | undefined;
      if (props && typeof props === 'object') {
        for (const [name, sub] of Object.entries(props)) {
          count++;
          if (!sub || typeof sub !== 'object' || typeof (sub as Record<string, unknown>)['x-section'] !== 'string') missing.push(`${path}/properties/${name}`);
          walk(sub, `${path}/properties/${name}`);
        }
      }
      for (const k of schemaKeys) walk(s[k], `${path}/${k}`);
      for (const k of schemaLists) if (Array.isArray(s[k])) (s[k] as unknown[]).forEach((sub, i) => walk(sub, `${path}/${k}/${i}`));
      for (const k of schemaMaps) if (s[k] && typeof s[k] === 'object') for (const [n, sub] of Object.entries(s[k] as object)) walk(sub, `${path}/${k}/${n}`);
    }
    walk(schema, '#');
    expect(count).toBeGreaterThan(50);
    expect(missing).toEqual([]);
    expect(schema.properties.data['x-section']).toBe('2.5');
  });
});

describe('catalog rules the schema cannot say', () => {
  it('finds nothing wrong in the valid fixture', () => {
    expect(catalogRuleViolations(valid)).toEqual([]);
  });

  const broken: [string, (d: Json) => void, RegExp][] = [
    [
      'a UTC window that starts where it ends',
      (d) => {
        const p = reason(d).input_modalities[0].pricing[1];
        p.utc_end = p.utc_start;
      },
      /^\/data\/1 \(.*\)\.input_modalities\[0\]\.pricing\[1\]: utc_start and utc_end are both \d+; they must differ$/,
    ],
    [
      'two prices of one type',
      (d) => {
        chat(d).input_modalities[0].pricing.push({ ...chat(d).input_modalities[0].pricing[0] });
      },
      /input_modalities\[0\]\.pricing\[\d\]: a second entry of type "prompt" with the same qualifiers as \[0\]/,
    ],
    [
      'min above max',
      (d) => {
        chatParams(d).temperature.min = 3;
      },
      /supported_parameters\.temperature: min 3 is above max 2$/,
    ],
    [
      'min above max in a nested descriptor',
      (d) => {
        chat(d).passthrough_parameters = { opts: { type: 'object', properties: { k: { type: 'integer', min: 9, max: 1 } } } };
      },
      /passthrough_parameters\.opts\.properties\.k: min 9 is above max 1$/,
    ],
  ];

  it.each(broken)('finds %s', (_name, mutate, message) => {
    const d = clone();
    mutate(d);
    const found = catalogRuleViolations(d);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(message);
  });

  it('lets one type carry several prices when a qualifier tells them apart (a cache lifetime, a UTC window)', () => {
    const d = clone();
    const pricing = chat(d).input_modalities[0].pricing;
    pricing.push({ type: 'cache_write', unit: 'token', cost_usd: '0.000001', ttl_seconds: 300 }, { type: 'cache_write', unit: 'token', cost_usd: '0.000002', ttl_seconds: 3600 });
    expect(catalogRuleViolations(d)).toEqual([]);
  });
});
