// A value that validates against a JSON Schema, chosen deterministically: tool-call arguments and
// json_schema output. Covers the subset of JSON Schema that tool and structured-output schemas use
// (objects, arrays, scalars, enum, const, anyOf/oneOf, $ref into $defs); anything else gets null.
import { between, pick } from './random.js';

type Schema = Record<string, unknown> | boolean;
/** Depth past which optional properties and arrays without minItems are left empty. */
const DEEP = 8;
const WORDS = ['alpha', 'bravo', 'delta', 'echo', 'lima', 'oscar', 'sierra', 'tango'];

export function instanceOf(schema: unknown, rand: () => number, root: unknown = schema, depth = 0): unknown {
  if (schema === true || schema === undefined) return 'value';
  if (!schema || typeof schema !== 'object' || depth > 12) return null;
  const s = schema as Record<string, unknown>;
  if (typeof s.$ref === 'string') return instanceOf(resolveRef(root, s.$ref), rand, root, depth + 1);
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length) return pick(rand, s.enum);
  for (const k of ['anyOf', 'oneOf'] as const) {
    const alts = s[k];
    // The first non-null alternative: nullable fields get a real value, which also validates.
    if (Array.isArray(alts) && alts.length) return instanceOf(alts.find((a) => (a as { type?: unknown })?.type !== 'null') ?? alts[0], rand, root, depth + 1);
  }
  if (Array.isArray(s.allOf) && s.allOf.length) return instanceOf(Object.assign({}, ...(s.allOf as object[])), rand, root, depth + 1);
  const type = Array.isArray(s.type) ? (s.type.find((t) => t !== 'null') ?? 'null') : (s.type ?? (s.properties ? 'object' : s.items ? 'array' : 'string'));
  switch (type) {
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, Schema>;
      const required = Array.isArray(s.required) ? s.required : [];
      const out: Record<string, unknown> = {};
      // Deep in a recursive schema, only what is required: the recursion ends.
      for (const [k, sub] of Object.entries(props)) if (depth < DEEP || required.includes(k)) out[k] = instanceOf(sub, rand, root, depth + 1);
      return out;
    }
    case 'array': {
      const min = typeof s.minItems === 'number' ? s.minItems : depth < DEEP ? 1 : 0;
      const max = typeof s.maxItems === 'number' ? s.maxItems : Math.max(min, 2);
      const n = depth < DEEP ? Math.min(between(rand, min, Math.max(min, max)), min + 3) : min;
      if (Array.isArray(s.prefixItems)) return s.prefixItems.map((p) => instanceOf(p, rand, root, depth + 1));
      return Array.from({ length: n }, () => instanceOf(s.items, rand, root, depth + 1));
    }
    case 'integer':
    case 'number': {
      const [min, max, xmin, xmax] = [num(s.minimum), num(s.maximum), num(s.exclusiveMinimum), num(s.exclusiveMaximum)];
      const upper = max ?? (xmax !== undefined ? Math.ceil(xmax) - 1 : undefined);
      // Only an upper bound below zero: the range ends there, not at 0.
      const lo = min ?? (xmin !== undefined ? Math.floor(xmin) + 1 : upper !== undefined && upper < 0 ? upper - 100 : 0);
      const hi = upper ?? lo + 100;
      // A number range with no integer in it (0.5..0.9): its middle.
      if (type === 'number' && Math.ceil(lo) > Math.floor(hi)) return ((min ?? xmin ?? lo) + (max ?? xmax ?? hi)) / 2;
      let v = between(rand, Math.ceil(lo), Math.max(Math.ceil(lo), Math.floor(hi)));
      const step = num(s.multipleOf);
      if (step) v = Math.ceil(lo / step) * step;
      return v;
    }
    case 'boolean':
      return rand() < 0.5;
    case 'null':
      return null;
    default:
      return stringFor(s, rand);
  }
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function stringFor(s: Record<string, unknown>, rand: () => number): string {
  switch (s.format) {
    case 'date-time':
      return '2026-01-01T00:00:00Z';
    case 'date':
      return '2026-01-01';
    case 'time':
      return '00:00:00Z';
    case 'email':
      return 'user@example.com';
    case 'uri':
    case 'url':
      return 'https://example.com/';
    case 'uuid':
      return '00000000-0000-4000-8000-000000000000';
  }
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = typeof s.maxLength === 'number' ? s.maxLength : Infinity;
  let out = pick(rand, WORDS);
  while (out.length < min) out += ` ${pick(rand, WORDS)}`;
  return out.slice(0, Math.max(min, Math.min(out.length, max)));
}

function resolveRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const part of ref.slice(1).split('/').filter(Boolean)) node = (node as Record<string, unknown> | undefined)?.[decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~')];
  return node;
}
