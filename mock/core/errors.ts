// Error replies in the OpenAI-compatible shape (the document leaves the body unshown, section 7).
import type { MockReply } from './types.js';

/** How much of a value the client sent an error message repeats. */
export const ECHO_MAX = 200;
/** A message is never longer than this, whatever it repeats: the backstop for a value repeated
 * through a library's own message (a parser's, a fault's parameter check). */
const MESSAGE_MAX = 4_000;

/** A value the client sent, as a message repeats it: cut to ECHO_MAX characters, saying how long it was
 * (a model name of megabytes is answered in a few hundred bytes). */
export function echoed(value: string): string {
  return value.length > ECHO_MAX ? `${value.slice(0, ECHO_MAX)}… [${value.length.toLocaleString('en-US')} characters]` : value;
}

export function errorReply(status: number, message: string, type: string, code: string | null = null, param: string | null = null, headers: Record<string, string> = {}): MockReply {
  return {
    status,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ error: { message: message.length > MESSAGE_MAX ? `${message.slice(0, MESSAGE_MAX)}… [cut]` : message, type, param, code } }),
  };
}
