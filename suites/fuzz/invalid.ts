// Requests that are not requests of 2.1, each a valid one with one thing wrong: a field of each JSON
// type it does not take, a required field missing, an unknown role or enum value, more stop sequences
// than allowed, a value outside the range the model's catalog entry declares, an unknown model, JSON
// cut short. The server owes each a refusal.
import fc from 'fast-check';
import { enumAt, schemaAt } from '../../schemas/index.js';
import type { ParameterDescriptor } from '../api.js';
import { RawJson, type FuzzCase } from './case.js';
import { FIELDS, wrongTypes, type Field, type JsonType } from './fields.js';
import { anyInteger, BEYOND_DOUBLE, fraction, MACHINE_EDGES } from './numbers.js';
import { emptyRange, rangeOf, type ModelSpace } from './space.js';
import { identifier, text } from './text.js';
import { STOP_MAX, validBody, type Body } from './valid.js';

const ROLES = enumAt('request#/$defs/message/properties/role');
const NAME = new RegExp(schemaAt('request#/$defs/tool/properties/function/properties/name').pattern as string);

const small = fc.oneof(text(8), fc.integer(), fc.boolean(), fc.constant(null));

/** A value of one JSON type (`number` is a fraction: it is the wrong type where an integer is due). */
export function valueOfType(t: JsonType): fc.Arbitrary<unknown> {
  switch (t) {
    case 'string':
      return text(20);
    case 'integer':
      return anyInteger;
    case 'number':
      return fraction;
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(small, { maxLength: 3 });
    case 'object':
      return fc.dictionary(identifier, small, { maxKeys: 3, noNullPrototype: true });
    case 'null':
      return fc.constant(null);
  }
}

export const A: Record<JsonType, string> = { string: 'a string', integer: 'an integer', number: 'a fraction', boolean: 'a boolean', array: 'an array', object: 'an object', null: 'null' };

export const refused = (what: string, body: Body, aboutModel = false): FuzzCase => ({ expect: 'refused', what, body, ...(aboutModel ? { aboutModel } : {}) });

type Edit = (b: Body) => Body;
const lastMessage =
  (edit: (m: Record<string, unknown>) => unknown): Edit =>
  (b) => {
    const messages: unknown[] = [...(b.messages as Record<string, unknown>[])];
    messages[messages.length - 1] = edit(messages[messages.length - 1] as Record<string, unknown>);
    return { ...b, messages };
  };
const without = (o: Record<string, unknown>, key: string) => Object.fromEntries(Object.entries(o).filter(([k]) => k !== key));

/** `what`, made by `edit` from a valid body and a generated value. */
const mutation = <T>(base: fc.Arbitrary<Body>, what: string, value: fc.Arbitrary<T>, edit: (b: Body, v: T) => Body, aboutModel = false) =>
  fc.tuple(base, value).map(([b, v]) => refused(what, edit(b, v), aboutModel));

function fieldCases(base: fc.Arbitrary<Body>, f: Field): fc.Arbitrary<FuzzCase>[] {
  const types = wrongTypes(f).map((t) => mutation(base, `${f.name} as ${A[t]}`, valueOfType(t), (b, v) => ({ ...b, [f.name]: v }), f.name === 'model'));
  const values = f.values;
  const unknown = values
    ? [
        mutation(
          base,
          `${f.name} as an unknown value`,
          text(12, 1).filter((s) => !values.includes(s)),
          (b, v) => ({ ...b, [f.name]: v }),
        ),
      ]
    : [];
  const missing = f.required ? [base.map((b) => refused(`a request without ${f.name}`, without(b, f.name), f.name === 'model'))] : [];
  return [...types, ...unknown, ...missing];
}

/** Inside messages, stop, tools, tool_choice, response_format and stream_options. */
function nestedCases(base: fc.Arbitrary<Body>, stopMax: number): fc.Arbitrary<FuzzCase>[] {
  return [
    base.map((b) => refused('messages empty', { ...b, messages: [] })),
    mutation(base, 'a message that is not an object', fc.oneof(text(10), fc.integer(), fc.constant(null)), (b, v) => lastMessage(() => v)(b)),
    base.map((b) => refused('a message without role', lastMessage((m) => without(m, 'role'))(b))),
    mutation(
      base,
      'a message with an unknown role',
      text(12, 1).filter((r) => !ROLES.includes(r)),
      (b, role) => lastMessage((m) => ({ ...m, role }))(b),
    ),
    mutation(base, 'a role that is not a string', fc.oneof(fc.integer(), fc.boolean(), fc.constant(null)), (b, role) => lastMessage((m) => ({ ...m, role }))(b)),
    mutation(base, 'content of the wrong type', fc.oneof(valueOfType('integer'), valueOfType('boolean'), valueOfType('object'), valueOfType('null')), (b, content) =>
      lastMessage((m) => ({ ...m, content }))(b),
    ),
    base.map((b) => refused('a message without content', lastMessage((m) => without(m, 'content'))(b))),
    mutation(base, 'a content part without type', text(12), (b, t) => lastMessage((m) => ({ ...m, content: [{ text: t }] }))(b)),
    base.map((b) => refused('a tool message without tool_call_id', { ...b, messages: [...(b.messages as unknown[]), { role: 'tool', content: 'done' }] })),
    base.map((b) =>
      refused('a system message with an image part', {
        ...b,
        messages: [{ role: 'system', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }, ...(b.messages as unknown[])],
      }),
    ),
    mutation(base, 'stop with an item that is not a string', fc.oneof(fc.integer(), fc.boolean(), fc.constant(null)), (b, v) => ({ ...b, stop: ['###', v] })),
    mutation(
      base,
      `stop with more than ${stopMax} sequences`,
      fc.oneof(
        { arbitrary: fc.array(text(8, 1), { minLength: stopMax + 1, maxLength: stopMax + 4 }), weight: 3 },
        // Far more: a server that copies them into a fixed array before it counts them breaks here.
        { arbitrary: fc.tuple(text(8, 1), fc.constantFrom(1_000, 10_000)).map(([t, n]) => Array.from({ length: n }, () => t)), weight: 1 },
      ),
      (b, stop) => ({ ...b, stop }),
    ),
    mutation(base, 'a tool that is not an object', fc.oneof(text(10), fc.integer()), (b, v) => ({ ...b, tools: [v] })),
    base.map((b) => refused('a tool without function', { ...b, tools: [{ type: 'function' }] })),
    mutation(base, 'a tool whose function has no name', text(20), (b, description) => ({ ...b, tools: [{ type: 'function', function: { description } }] })),
    mutation(
      base,
      'a function name outside the pattern',
      text(70, 1).filter((n) => !NAME.test(n)),
      (b, name) => ({ ...b, tools: [{ type: 'function', function: { name } }] }),
    ),
    mutation(
      base,
      'a tool of an unknown type',
      identifier.filter((t) => t !== 'function'),
      (b, type) => ({ ...b, tools: [{ type, function: { name: 'get_time' } }] }),
    ),
    base.map((b) => refused('tool_choice naming no function', { ...b, tool_choice: { type: 'function' } })),
    mutation(
      base,
      'response_format of an unknown type',
      identifier.filter((t) => !['text', 'json_object', 'json_schema'].includes(t)),
      (b, type) => ({ ...b, response_format: { type } }),
    ),
    base.map((b) => refused('response_format json_schema without its schema', { ...b, response_format: { type: 'json_schema' } })),
    mutation(base, 'include_usage that is not a boolean', fc.oneof(text(6), fc.integer()), (b, include_usage) => ({ ...b, stream: true, stream_options: { include_usage } })),
  ];
}

/** Past one end of a declared range: just past it, far past it, and for an integer the machine edges
 * past it (2^31, 2^32, 2^53 - 1) and beyond what a double holds, tried on purpose as Schemathesis
 * tries a range's bounds: a server that checks the range after storing the value in 32 bits breaks
 * there, not at max + 1. */
const above = (max: number, integer: boolean): fc.Arbitrary<number | RawJson> =>
  integer
    ? fc.oneof(
        fc.integer({ min: max + 1, max: Math.min(max + 2 ** 31, Number.MAX_SAFE_INTEGER) }),
        ...edgesBeyond((e) => e > max),
        fc.constantFrom(...BEYOND_DOUBLE.filter((t) => !t.startsWith('-'))).map((t) => new RawJson(t)),
      )
    : fc.double({ min: max + Math.max(1e-6, Math.abs(max) * 1e-6), max: Math.max(max * 10, max + 10), noNaN: true });
const below = (min: number, integer: boolean): fc.Arbitrary<number> =>
  integer
    ? fc.oneof(fc.integer({ min: Math.max(min - 2 ** 31, Number.MIN_SAFE_INTEGER), max: min - 1 }), ...edgesBeyond((e) => e < min))
    : fc.double({ min: Math.min(min * 10, min - 10), max: min - Math.max(1e-6, Math.abs(min) * 1e-6), noNaN: true });
/** The machine edges that pass the test, as one arbitrary, or none. */
const edgesBeyond = (past: (e: number) => boolean): fc.Arbitrary<number>[] => {
  const edges = MACHINE_EDGES.filter(past);
  return edges.length ? [fc.constantFrom(...edges)] : [];
};

/** Values outside what the model's catalog entry declares: beyond each end, a fraction for an
 * integer, an undeclared enum value. Nothing is out of range where nothing is declared. */
function rangeCases(base: fc.Arbitrary<Body>, m: ModelSpace): fc.Arbitrary<FuzzCase>[] {
  const out: fc.Arbitrary<FuzzCase>[] = [];
  for (const [name, d] of Object.entries(m.params ?? {}) as [string, ParameterDescriptor][]) {
    if (!d || typeof d !== 'object') continue;
    const set = <T>(what: string, value: fc.Arbitrary<T>) => out.push(mutation(base, `${name} ${what} for ${m.id}`, value, (b, v) => ({ ...b, [name]: v })));
    if ((d.type === 'range' || d.type === 'integer') && !emptyRange(m, name)) {
      const integer = d.type === 'integer';
      const { min, max } = rangeOf(m, name, { min: NaN, max: NaN });
      if (!Number.isNaN(max)) set(`above the declared max ${max}`, above(max, integer));
      if (!Number.isNaN(min)) set(`below the declared min ${min}`, below(min, integer));
      if (integer) set('as a fraction', fraction);
    } else if (d.type === 'enum' && Array.isArray(d.values)) {
      const values = d.values;
      set(
        'as an undeclared value',
        text(12, 1).filter((v) => !values.includes(v)),
      );
    }
  }
  return out;
}

/** Every invalid request for the model; `others` are the ids of every model under test, none of
 * which an unknown model may take. */
export function invalidCases(m: ModelSpace, others: readonly string[]): fc.Arbitrary<FuzzCase>[] {
  const base = validBody(m);
  const stopMax = m.params?.stop?.type === 'array' && typeof m.params.stop.max_items === 'number' ? Math.floor(m.params.stop.max_items) : STOP_MAX;
  return [
    ...FIELDS.flatMap((f) => fieldCases(base, f)),
    ...nestedCases(base, stopMax),
    ...rangeCases(base, m),
    mutation(
      base,
      'a model that does not exist',
      text(24, 1).filter((id) => !others.includes(id)),
      (b, model) => ({ ...b, model }),
      true,
    ),
    fc.tuple(base, fc.integer({ min: 1, max: 400 })).map(([b, cut]): FuzzCase => ({ ...refused('JSON cut short', b), cut })),
  ];
}
