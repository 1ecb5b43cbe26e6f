// Faults of the per-model parameter ranges (2.1, 8): the server and its catalog disagree.
import type { MockConfig, ParameterDescriptor } from '../../config/types.js';
import type { MockRequest } from '../types.js';
import type { Fault } from './fault.js';
import { errorReply } from '../errors.js';
import { isCatalog, isChat, requestJson, withJson, withRequestJson } from './rewrite.js';

/** Rewrites a chat request's declared parameters: `edit` sees each with its descriptor. */
const eachDeclared =
  (edit: (body: Record<string, any>, name: string, d: ParameterDescriptor) => void): Fault['request'] =>
  (req, { config }) =>
    !isChat(req)
      ? req
      : withRequestJson(req, (body) => {
          const model = config.models.find((m) => m.id === body.model);
          for (const [name, d] of Object.entries(model?.parameters ?? {})) edit(body, name, d);
        });

const BASE: Fault[] = [
  {
    name: 'parameters-ranges-ignored',
    description: 'The server accepts numbers outside the declared ranges, clamping them silently, instead of refusing them',
    fails: ['parameters.out-of-range'],
    request: eachDeclared((body, name, d) => {
      const v = body[name];
      if ((d.type === 'range' || d.type === 'integer') && typeof v === 'number') body[name] = Math.min(Math.max(v, d.min ?? -Infinity), d.max ?? Infinity);
    }),
  },
  {
    name: 'parameters-catalog-overstates-range',
    description: 'The catalog declares temperature up to 10 while the server takes at most 2',
    fails: ['parameters.in-range'],
    reply: (r, req) =>
      isCatalog(req) && 'status' in r && r.status === 200
        ? withJson(r, (doc) => {
            for (const m of doc.data) {
              const t = m.output_modalities.find((o: any) => o.type === 'text')?.supported_parameters?.temperature;
              if (t?.type === 'range') t.max = 10;
            }
          })
        : r,
  },
  {
    name: 'parameters-declared-top-p-refused',
    description: 'The server refuses top_p at any value, though the catalog declares it',
    fails: ['parameters.in-range'],
    reply: (r, req) => {
      if (!isChat(req) || !('status' in r) || r.status !== 200) return r;
      return requestJson(req)?.top_p === undefined ? r : errorReply(400, 'top_p is not supported by this model.', 'invalid_request_error', 'unsupported_parameter', 'top_p');
    },
  },
];

/** A request that carries `name` at the end of its declared range `end` (min or max). */
const atEnd = (req: MockRequest, config: MockConfig, end: 'min' | 'max') => {
  const body = requestJson(req);
  const model = config.models.find((m) => m.id === body?.model);
  return Object.entries(model?.parameters ?? {}).find(([name, d]) => (d.type === 'range' || d.type === 'integer') && d[end] !== undefined && body?.[name] === d[end])?.[0];
};

const NEW: Fault[] = [
  {
    name: 'parameters-max-refused',
    description: 'A value at the very maximum of its declared range is refused (the server reads the range as exclusive)',
    fails: ['parameters.in-range'],
    reply: (r, req, { config }) => {
      const name = isChat(req) && 'status' in r && r.status === 200 ? atEnd(req, config, 'max') : undefined;
      return name ? errorReply(400, `${name} must be below its maximum.`, 'invalid_request_error', 'unsupported_value', name) : r;
    },
  },
  {
    name: 'parameters-min-unchecked',
    description: 'Only the maximum of a declared range is checked: a value below the minimum is raised to it and served',
    fails: ['parameters.out-of-range'],
    request: eachDeclared((body, name, d) => {
      const v = body[name];
      if ((d.type === 'range' || d.type === 'integer') && typeof v === 'number' && d.min !== undefined && v < d.min) body[name] = d.min;
    }),
  },
  {
    name: 'parameters-fraction-truncated',
    description: 'An integer parameter given a fraction is truncated and served instead of refused',
    fails: ['parameters.out-of-range'],
    request: eachDeclared((body, name, d) => void (d.type === 'integer' && typeof body[name] === 'number' && (body[name] = Math.trunc(body[name])))),
  },
  {
    name: 'parameters-enum-value-refused',
    description: 'reasoning_effort "high" is refused though the catalog declares it',
    fails: ['parameters.in-range'],
    on: 'mock-reason-1',
    reply: (r, req) =>
      isChat(req) && requestJson(req)?.reasoning_effort === 'high' ? errorReply(400, 'reasoning_effort high is not available.', 'invalid_request_error', 'unsupported_value', 'reasoning_effort') : r,
  },
  {
    name: 'parameters-undeclared-value-accepted',
    description: 'An enum value the catalog does not declare is accepted (read as the default)',
    fails: ['parameters.out-of-range'],
    request: eachDeclared((body, name, d) => void (d.type === 'enum' && typeof body[name] === 'string' && !d.values.includes(body[name]) && delete body[name])),
  },
  {
    name: 'parameters-accepted-empty',
    description: 'A request carrying top_p is answered 200 with an empty body',
    fails: ['parameters.in-range'],
    reply: (r, req) => (isChat(req) && requestJson(req)?.top_p !== undefined && 'status' in r && r.status === 200 ? { status: 200, headers: { 'content-type': 'application/json' }, body: '' } : r),
  },
];

export const PARAMETERS_FAULTS: Fault[] = [...BASE, ...NEW];
