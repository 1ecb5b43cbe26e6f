// One deviation on one path: a fault of the catalogue applied only to requests on that path, so a
// check is proven to catch a server that breaks a rule only when streamed, or only for one model.
import type { MockRequest } from '../types.js';
import type { Fault } from './fault.js';
import { requestJson } from './rewrite.js';

export interface Scope {
  /** Streamed requests (true) or not (false). */
  stream?: boolean;
  /** Requests that name this model. */
  model?: string;
}

const within = (req: MockRequest, scope: Scope): boolean => {
  const body = requestJson(req);
  if (scope.stream !== undefined && (body?.stream === true) !== scope.stream) return false;
  if (scope.model !== undefined && body?.model !== scope.model) return false;
  return true;
};

/** The fault, only on the requests of `scope`; `fails` names the checks that then fail, on that path. */
export function only(fault: Fault, scope: Scope, fails: readonly string[]): Fault {
  const where = [scope.stream === true ? 'when streamed' : scope.stream === false ? 'when not streamed' : '', scope.model ? `for ${scope.model}` : ''].filter(Boolean).join(' ');
  return {
    ...fault,
    name: `${fault.name}-${[scope.stream === true ? 'streamed' : scope.stream === false ? 'json' : '', scope.model ?? ''].filter(Boolean).join('-')}`,
    description: `${fault.description}, only ${where}`,
    fails,
    on: scope.model ?? (scope.stream === true ? 'stream' : scope.stream === false ? 'json' : undefined),
    request: fault.request && ((req, ctx) => (within(req, scope) ? fault.request!(req, ctx) : req)),
    reply: fault.reply && ((r, req, ctx) => (within(req, scope) ? fault.reply!(r, req, ctx) : r)),
  };
}
