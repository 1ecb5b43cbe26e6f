// Faults of the per-model parameter ranges (2.1, 8): the server and its catalog disagree.
import type { Fault } from './fault.js';
import { errorReply } from '../errors.js';
import { isCatalog, isChat, requestJson, withJson, withRequestJson } from './rewrite.js';

export const PARAMETERS_FAULTS: Fault[] = [
  {
    name: 'parameters-ranges-ignored',
    description: 'The server accepts numbers outside the declared ranges, clamping them silently, instead of refusing them',
    fails: ['parameters.out-of-range'],
    request: (req, { config }) =>
      !isChat(req)
        ? req
        : withRequestJson(req, (body) => {
            const model = config.models.find((m) => m.id === body.model);
            for (const [name, d] of Object.entries(model?.parameters ?? {})) {
              const v = body[name];
              if ((d.type !== 'range' && d.type !== 'integer') || typeof v !== 'number') continue;
              body[name] = Math.min(Math.max(v, d.min ?? -Infinity), d.max ?? Infinity);
            }
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
