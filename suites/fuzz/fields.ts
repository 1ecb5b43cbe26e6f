// The fields of 2.1 and the JSON types each takes, read from schemas/request.schema.json: what a wrong
// type is for a field follows from the schema, never from a list kept here.
import { SCHEMAS } from '../../schemas/index.js';

export type JsonType = 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object';
export const JSON_TYPES: readonly JsonType[] = ['string', 'number', 'integer', 'boolean', 'array', 'object', 'null'];

export interface Field {
  name: string;
  section: string;
  required: boolean;
  /** The JSON types the field takes (`number` includes the integers). */
  types: ReadonlySet<JsonType>;
  /** The only strings it takes, for an enum. */
  values?: readonly string[];
}

type Node = Record<string, unknown>;
const schema = SCHEMAS.request as unknown as Node;

const resolve = (node: Node): Node => {
  const ref = node.$ref;
  if (typeof ref !== 'string') return node;
  return resolve((schema.$defs as Record<string, Node>)[ref.replace('#/$defs/', '')]);
};

const typeOf = (v: unknown): JsonType => (v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : (typeof v as JsonType));

function shape(node: Node): { types: Set<JsonType>; values?: string[] } {
  const n = resolve(node);
  const types = new Set<JsonType>();
  let values: string[] | undefined;
  for (const t of [n.type].flat()) if (typeof t === 'string') types.add(t as JsonType);
  if (Array.isArray(n.enum)) {
    for (const v of n.enum) types.add(typeOf(v));
    values = n.enum.filter((v): v is string => typeof v === 'string');
  }
  if ('const' in n) types.add(typeOf(n.const));
  for (const branch of (n.oneOf ?? n.anyOf ?? []) as Node[]) {
    const s = shape(branch);
    for (const t of s.types) types.add(t);
    if (s.values) values = [...(values ?? []), ...s.values];
  }
  if (types.has('number')) types.add('integer');
  return { types, values };
}

/** The fields of 2.1 in the schema's order; the convention's extra names (max_completion_tokens,
 * parallel_tool_calls) are not fields of the document. */
export const FIELDS: readonly Field[] = Object.entries(schema.properties as Record<string, Node>)
  .filter(([, node]) => !String(node['x-section']).includes('convention'))
  .map(([name, node]) => ({ name, section: String(node['x-section']), required: (schema.required as string[]).includes(name), ...shape(node) }));

/** The JSON types a field does not take: for an optional field null is absence, so not among them;
 * for an integer field a fraction (`number`) is. */
export const wrongTypes = (f: Field): JsonType[] => JSON_TYPES.filter((t) => !f.types.has(t) && !(t === 'null' && !f.required));
