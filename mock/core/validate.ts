// Requests are judged by the same schemas the kit's checks use, then by the ranges the model
// declares in the catalog: the mock refuses exactly what the documents say is out of bounds.
import { validator } from '../../schemas/index.js';
import type { ModelDef, ParameterDescriptor } from '../config/types.js';

// Stops at the first violation: one is answer enough, and the time stays linear in the request
// (every violation of 100,000 invalid messages took ajv minutes: schemas/index.ts, firstAjv).
const validRequest = validator('request', { first: true });
/** Each model's declared parameters, listed once rather than per request. */
const DECLARED = new WeakMap<ModelDef, [string, ParameterDescriptor][]>();

export function requestProblem(body: unknown): { message: string; param?: string } | undefined {
  const v = validRequest(body);
  if (v.ok) return undefined;
  const first = v.errors[0];
  const param = /^\/([^/:]+)/.exec(first)?.[1];
  return { message: `invalid request: ${v.errors.join('; ')}`, param };
}

/** A value outside a declared range, enum or item limit. Undeclared fields are left alone: what a
 * model does with a parameter it does not support is not shown in the document. */
export function parameterProblem(body: Record<string, unknown>, model: ModelDef): { message: string; param: string } | undefined {
  let declared = DECLARED.get(model);
  if (!declared) DECLARED.set(model, (declared = Object.entries(model.parameters)));
  for (const [name, d] of declared) {
    const value = body[name];
    if (value === undefined || value === null) continue;
    const why = outside(value, d);
    if (why) return { message: `${name} ${why} for model ${model.id}`, param: name };
  }
  return undefined;
}

function outside(value: unknown, d: ParameterDescriptor): string | undefined {
  switch (d.type) {
    case 'range':
    case 'integer':
      if (typeof value !== 'number') return undefined;
      if (d.type === 'integer' && !Number.isInteger(value)) return `must be an integer`;
      if (d.min !== undefined && value < d.min) return `must be at least ${d.min}`;
      if (d.max !== undefined && value > d.max) return `must be at most ${d.max}`;
      return undefined;
    case 'enum':
      return typeof value === 'object' || d.values.includes(value as string) ? undefined : `must be one of ${d.values.join(', ')}`;
    case 'array':
      return Array.isArray(value) && d.max_items !== undefined && value.length > d.max_items ? `takes at most ${d.max_items} items` : undefined;
    default:
      return undefined;
  }
}
