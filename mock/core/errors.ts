// Error replies in the OpenAI-compatible shape (the document leaves the body unshown, section 7).
import type { MockReply } from './types.js';

export function errorReply(status: number, message: string, type: string, code: string | null = null, param: string | null = null, headers: Record<string, string> = {}): MockReply {
  return {
    status,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ error: { message, type, param, code } }),
  };
}
