// What every transport holds a request to before the core sees it, and the guard around the core:
// a malformed request gets a 4xx or a 500 JSON error, never a crash of the server or the page.
import { errorReply } from './errors.js';
import type { Mock } from './handle.js';
import type { MockReply, MockRequest } from './types.js';

export const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

export const tooLarge = (): MockReply => errorReply(413, `Request body larger than ${MAX_REQUEST_BYTES} bytes.`, 'invalid_request_error', 'body_too_large');

export function safeHandle(mock: Mock, req: MockRequest): MockReply {
  try {
    return mock.handle(req);
  } catch (e) {
    return errorReply(500, `The mock failed on this request: ${(e as Error).message}`, 'server_error', 'internal_error');
  }
}
