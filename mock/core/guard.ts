// The guard around the core: whatever a request is, the transport gets a reply. A body past the
// limits is refused by the core itself (mock/core/limits.ts); a throw anywhere in it is a 500 JSON
// error, never a crash of the server or the page.
import { DEFAULT_LIMITS } from './limits.js';
import { echoed, errorReply } from './errors.js';
import type { Mock } from './handle.js';
import type { MockReply, MockRequest } from './types.js';

/** The default size limit (limits.body_bytes). */
export const MAX_REQUEST_BYTES = DEFAULT_LIMITS.body_bytes;

/** What a throw becomes: the 500 every route answers in its place. */
export const internalError = (e: unknown): MockReply => errorReply(500, `The mock failed on this request: ${echoed(e instanceof Error ? e.message : String(e))}`, 'server_error', 'internal_error');

export function safeHandle(mock: Mock, req: MockRequest): MockReply {
  try {
    return mock.handle(req);
  } catch (e) {
    return internalError(e);
  }
}
