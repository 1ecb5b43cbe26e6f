// The one loader: every schema of the document compiled once, shared by the checks and the mock.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import request from './request.schema.json' with { type: 'json' };
import response from './response.schema.json' with { type: 'json' };
import chunk from './chunk.schema.json' with { type: 'json' };
import error from './error.schema.json' with { type: 'json' };
import models from './models.schema.json' with { type: 'json' };
import catalog from './catalog.schema.json' with { type: 'json' };
import mockConfig from './mock-config.schema.json' with { type: 'json' };
import baseline from './baseline.schema.json' with { type: 'json' };
import report from './report.schema.json' with { type: 'json' };
import control from './control.schema.json' with { type: 'json' };
import ajvPackage from 'ajv/package.json' with { type: 'json' };
import { nearest } from './nearest.js';
import { firstViolations } from './first-violations.js';

// ajv-formats is CommonJS with a default export; under nodenext it arrives wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020) => void;
const AJV_VERSION = ajvPackage.version;

const SCHEMAS = { request, response, chunk, error, models, catalog, 'mock-config': mockConfig, baseline, report, control } as const;
export type SchemaName = keyof typeof SCHEMAS;
const BASE = 'https://conformance.local/schemas/';

/** What every instance shares. */
const OPTIONS = { strictRequired: false, verbose: true, allowUnionTypes: true } as const;
const KEYWORD = { keyword: 'x-section', schemaType: 'string' } as const;

function newAjv(strict: boolean, allErrors = true, source = false): Ajv2020 {
  const ajv = new Ajv2020({ allErrors, strict, ...OPTIONS, ...(source ? { code: { source: true } } : {}) });
  addFormats(ajv);
  ajv.addKeyword(KEYWORD);
  return ajv;
}

/** The schemas, compiled when first asked for: a command that validates nothing (`--help`, `list`)
 * starts without paying for them (most of the command line's start-up). */
let fullAjv: Ajv2020 | undefined;
// The same schemas, stopping at the first violation. With allErrors, ajv's code joins the errors of
// each array item checked through a $ref to all those before it (`vErrors.concat`, per item): the
// time grows with the square of the items that fail (100,000 invalid messages: minutes). Where the
// input is hostile and one violation is answer enough (the mock refusing a request), validation
// stops at the first and stays linear.
let firstAjv: Ajv2020 | undefined;

export interface Validation {
  ok: boolean;
  /** One line per violation: `<path>: <message> [<section>]`. */
  errors: string[];
}

const compiled = new Map<string, ValidateFunction>();
/** Every validator the modules loaded so far asked for (`first:` before those that stop at the first
 * violation): what the build compiles ahead (scripts/precompile-schemas.ts). */
const asked = new Set<string>();
/** The validators this process compiled itself, not found precompiled. */
const compiledHere: string[] = [];
export const compiledAtRuntime = (): readonly string[] => compiledHere;

/** Every valid value's verdict, one object: a load validates parts of every answer, and a fresh
 * object (with a fresh array) per call was most of what that cost. */
const VALID: Validation = Object.freeze({ ok: true, errors: Object.freeze([]) as unknown as string[] });

/** A validator for a whole schema (`'response'`) or one of its parts (`'response#/$defs/usage'`).
 * `first`: it stops at the first violation (linear in the data, whatever fails; see firstAjv). */
export function validator(ref: `${SchemaName}` | `${SchemaName}#${string}`, opts: { first?: boolean } = {}): (data: unknown) => Validation {
  const [name, pointer] = ref.split('#') as [SchemaName, string | undefined];
  // A ref that names nothing is a mistake in the kit: said when the module loads, not on first use.
  if (!(name in SCHEMAS) || (pointer && !resolves(SCHEMAS[name], pointer))) throw new Error(`no schema ${ref}`);
  asked.add(opts.first ? `first:${ref}` : ref);
  let validate: ValidateFunction | undefined;
  return (data) => {
    validate ??= compiledFor(ref, opts.first);
    return validate(data) ? VALID : { ok: false, errors: formatErrors(validate.errors) };
  };
}

function compiledFor(ref: string, first = false): ValidateFunction {
  const key = first ? `first:${ref}` : ref;
  let fn = compiled.get(key);
  if (!fn) {
    fn = ahead?.(madeOf())?.get(key);
    if (!fn) {
      fn = instance(first).getSchema(schemaId(ref));
      if (!fn) throw new Error(`no schema ${ref}`);
      compiledHere.push(key);
    }
    compiled.set(key, fn);
  }
  return fn;
}

/** Whether a JSON pointer (`/$defs/usage`) names a place in `schema`. */
function resolves(schema: unknown, pointer: string): boolean {
  let at = schema;
  for (const token of pointer.split('/').slice(1)) {
    const key = token.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!at || typeof at !== 'object' || !(key in at)) return false;
    at = (at as Record<string, unknown>)[key];
  }
  return true;
}

function instance(first: boolean): Ajv2020 {
  if (first) return (firstAjv ??= withSchemas(newAjv(true, false)));
  return (fullAjv ??= withSchemas(newAjv(true)));
}

/** The id ajv knows a ref by: `response#/$defs/usage` is the usage part of response.schema.json. */
function schemaId(ref: string): string {
  const [name, pointer] = ref.split('#');
  return `${BASE}${name}.schema.json${pointer ? `#${pointer}` : ''}`;
}

/** What the validators are made of: validators compiled ahead from anything else are not used. */
let made: string | undefined;
export const madeOf = () => (made ??= JSON.stringify([SCHEMAS, OPTIONS, KEYWORD, AJV_VERSION]));

/** Validators compiled ahead, by key, for the schemas and options `madeOf` names, else none: a Node
 * command installs them (schemas/precompiled.ts); elsewhere, as in a browser, each validator is
 * compiled when first asked for. */
type Ahead = (madeOf: string) => ReadonlyMap<string, ValidateFunction> | undefined;
let ahead: Ahead | undefined;
export function compileAheadFrom(source: Ahead): void {
  ahead = source;
}

function withSchemas(ajv: Ajv2020): Ajv2020 {
  for (const schema of Object.values(SCHEMAS)) ajv.addSchema(schema);
  return ajv;
}

/** What the build compiles ahead: every validator the modules loaded so far asked for, the instance
 * of each kind with ajv's code kept (for its standalone code), and the id of a ref there. */
export const compileAheadInputs = () => ({ keys: [...asked].sort(), instance: (first: boolean) => withSchemas(newAjv(true, !first, true)), schemaId });

/** Violations with their place as a path, worded as what was expected (for configuration files,
 * whose readers need the place more than the schema's vocabulary): at most `max`, those of the first
 * items found failing, found in time linear in the data (schemas/first-violations.ts). */
export function validatorErrors(ref: `${SchemaName}` | `${SchemaName}#${string}`, data: unknown, max = 10): { path: (string | number)[]; message: string }[] {
  // Asked for by name, so that the build compiles both ahead.
  validator(ref);
  validator(ref, { first: true });
  const errorsOf = (first: boolean) => (d: unknown) => {
    const fn = compiledFor(ref, first);
    return fn(d) ? null : (fn.errors ?? []);
  };
  const errors = firstViolations(errorsOf(true), errorsOf(false), data, max);
  const leaves = errors.filter((e) => !['oneOf', 'anyOf', 'if'].includes(e.keyword) || errors.length === 1);
  // A misspelt field is often also a missing one: the unknown name, said first, explains both.
  const unknownFirst = [...leaves.filter((e) => e.keyword === 'additionalProperties'), ...leaves.filter((e) => e.keyword !== 'additionalProperties')];
  const out = new Map<string, { path: (string | number)[]; message: string }>();
  for (const e of unknownFirst.length ? unknownFirst : errors) {
    if (out.size >= max) break;
    const path: (string | number)[] = e.instancePath
      .split('/')
      .slice(1)
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
    const params = e.params as Record<string, unknown>;
    let message: string;
    if (e.keyword === 'required') {
      path.push(String(params.missingProperty));
      message = 'expected this field; it is missing';
    } else if (e.keyword === 'additionalProperties') {
      const field = String(params.additionalProperty);
      path.push(field);
      message = `unknown field${unknownField(field, e.parentSchema)}`;
    } else if (e.keyword === 'enum') message = `expected one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    else if (e.keyword === 'const') message = `expected ${JSON.stringify(params.allowedValue)}`;
    else if (e.keyword === 'type') message = `expected ${String(params.type).replace(',', ' or ')}, found ${shown(e.data)}`;
    else if (e.keyword === 'pattern') message = `expected text matching ${String(params.pattern)}, found ${shown(e.data)}`;
    else if (['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'].includes(e.keyword))
      message = `expected a number ${String(params.comparison)} ${String(params.limit)}, found ${shown(e.data)}`;
    else message = `expected a value that ${e.message}`;
    out.set(`${path.join('/')}|${message}`, { path, message });
  }
  return [...out.values()];
}

/** Most characters of a value found where another was expected: a message names it, and a value of
 * a file can be megabytes. */
const SHOWN = 120;
const shown = (value: unknown) => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > SHOWN ? `${text.slice(0, SHOWN)}…` : text;
};

/** What an unknown field was probably meant to be: the nearest field the place takes, or the fields
 * it takes when none is near. */
function unknownField(field: string, parent: unknown): string {
  const known = Object.keys((parent as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});
  const near = nearest(field, known);
  if (near) return `: did you mean ${near}?`;
  return known.length ? ` (the fields here are ${known.join(', ')})` : '; check its spelling and where it stands';
}

export function formatErrors(errors: ErrorObject[] | null | undefined, limit = 10): string[] {
  const lines = (errors ?? [])
    // Branch noise of oneOf/anyOf/if: the leaf errors already say what is wrong.
    .filter((e) => !['oneOf', 'anyOf', 'if'].includes(e.keyword) || (errors?.length ?? 0) === 1)
    .map((e) => {
      const section = (e.parentSchema as Record<string, unknown> | undefined)?.['x-section'];
      const detail =
        e.keyword === 'enum'
          ? ` (${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')})`
          : e.keyword === 'const'
            ? ` (${JSON.stringify((e.params as { allowedValue: unknown }).allowedValue)})`
            : e.keyword === 'additionalProperties'
              ? ` (${(e.params as { additionalProperty: string }).additionalProperty})`
              : '';
      return `${e.instancePath || '/'}: ${e.message}${detail}${section ? ` [${section}]` : ''}`;
    });
  const unique = [...new Set(lines)];
  return unique.length > limit ? [...unique.slice(0, limit), `... ${unique.length - limit} more`] : unique;
}

/** A schema part itself, for rules that read values the schema holds (an enum, a maxItems)
 * instead of restating them in code. */
export function schemaAt(ref: `${SchemaName}#${string}`): Record<string, unknown> {
  const [name, pointer] = ref.split('#');
  let node: unknown = SCHEMAS[name as SchemaName];
  for (const part of pointer.split('/').filter(Boolean)) node = (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  if (!node || typeof node !== 'object') throw new Error(`no schema part ${ref}`);
  return node as Record<string, unknown>;
}

export const enumAt = (ref: `${SchemaName}#${string}`): unknown[] => schemaAt(ref).enum as unknown[];

// Schemas that arrive in requests (tool parameters, response_format json_schema) are compiled on a
// separate, lenient instance, so a hostile or sloppy schema never touches the document's own.
const userAjv = newAjv(false);
const userCache = new Map<string, ValidateFunction | Error>();
const USER_CACHE_MAX = 256;

/** Validates data against a schema that came from a request. A schema that does not compile is
 * reported as such, never thrown. */
export function validateWith(schema: unknown, data: unknown): Validation & { schemaError?: string } {
  const key = JSON.stringify(schema);
  let fn = userCache.get(key);
  if (!fn) {
    try {
      fn = userAjv.compile(schema as object);
    } catch (e) {
      fn = e instanceof Error ? e : new Error(String(e));
    }
    if (userCache.size >= USER_CACHE_MAX) userCache.delete(userCache.keys().next().value as string);
    userCache.set(key, fn);
  }
  if (fn instanceof Error) return { ok: false, errors: [], schemaError: fn.message };
  return fn(data) ? { ok: true, errors: [] } : { ok: false, errors: formatErrors(fn.errors) };
}

export { SCHEMAS };
