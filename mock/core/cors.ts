// Browser apps call the mock cross-origin. A preflight is answered; every answer to a request with
// an allowed Origin (loopback, or named: mock/boundary.ts) lets the page read it, including the
// retry headers the SDKs act on.
import type { CorsPolicy } from '../config/types.js';
import { originAllowed } from '../boundary.js';
import type { MockReply, MockRequest } from './types.js';

// A wildcard in Access-Control-Allow-Headers does not cover Authorization, so the headers the
// official SDKs send are named, and whatever else the preflight asks for is echoed.
const ALLOWED =
  'authorization, content-type, openai-organization, openai-project, x-stainless-os, x-stainless-arch, x-stainless-lang, x-stainless-package-version, x-stainless-runtime, x-stainless-runtime-version, x-stainless-retry-count, x-stainless-timeout, x-stainless-helper-method, x-stainless-async, x-mock-fault, x-mock-content';
const EXPOSED = 'retry-after, retry-after-ms, x-request-id, x-ratelimit-remaining-requests, x-ratelimit-reset-requests, x-mock-recorded-drift';

/** The answer to a preflight. An origin neither loopback nor listed is answered without the allow
 * headers, so the browser blocks the call as a real deployment's would. */
export function preflight(req: MockRequest, policy?: CorsPolicy): MockReply {
  const origin = req.headers.origin;
  const asked = req.headers['access-control-request-headers'];
  const headers = policy?.headers ? policy.headers.join(', ') : asked ? `${ALLOWED}, ${asked}` : ALLOWED;
  if (origin && !originAllowed(origin, policy?.origins, req.path)) return { status: 204, headers: { vary: 'Origin, Access-Control-Request-Headers' }, body: '' };
  return {
    status: 204,
    headers: {
      'access-control-allow-origin': origin ?? '*',
      'access-control-allow-methods': 'GET, POST, PUT, DELETE, OPTIONS',
      'access-control-allow-headers': headers,
      'access-control-max-age': '600',
      vary: 'Origin, Access-Control-Request-Headers',
    },
    body: '',
  };
}

/** Adds the CORS answer headers when the request came from a page (it carries an Origin) that is allowed. */
export function withCors(req: MockRequest, reply: MockReply, policy?: CorsPolicy): MockReply {
  const origin = req.headers.origin;
  if (!origin || !('headers' in reply) || !originAllowed(origin, policy?.origins, req.path)) return reply;
  return { ...reply, headers: { ...reply.headers, 'access-control-allow-origin': origin, 'access-control-expose-headers': EXPOSED, vary: 'Origin' } };
}
