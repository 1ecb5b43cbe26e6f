// The one reading of `Authorization: Bearer <key>` (5.1): the scheme in any case, one or more spaces,
// then the key. Authentication, the faults, the journal, the dashboard and the recorder read it the same way.
import { errorReply } from './errors.js';
import type { MockReply } from './types.js';

const BEARER = /^Bearer +(\S+)\s*$/i;

/** The key of a Bearer credential, or undefined when the header is absent or not Bearer. */
export const bearerToken = (authorization: string | undefined): string | undefined => BEARER.exec(authorization ?? '')?.[1];

/** The 401 for a request with no Bearer credential (5.1), or undefined when it has one. It never
 * repeats what was sent: a refusal must not echo a key. */
export function noBearer(authorization: string | undefined): MockReply | undefined {
  if (!authorization) return errorReply(401, 'Missing Authorization header: send Authorization: Bearer <API_KEY>.', 'invalid_request_error', 'missing_api_key');
  if (bearerToken(authorization) === undefined) return errorReply(401, 'Malformed Authorization header: expected Bearer <API_KEY>.', 'invalid_request_error', 'invalid_api_key');
  return undefined;
}
