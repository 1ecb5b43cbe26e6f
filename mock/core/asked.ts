// What a request asked, as a row of the dashboard shows it: the start of its last user message.
// Worked out when the request is journaled, from the body the core parsed to answer it, so that
// listing the journal (a page opening, a reconnect) never parses a stored body again.
import { contentText } from './tokens.js';

/** Characters a row shows of what was asked, and of what was answered. */
export const PREVIEW_CHARS = 120;
/** Of a long text, only this much is folded for its preview: a 4 MB message is not scanned whole. */
const FOLDED_MAX = 16 * PREVIEW_CHARS;

const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What folding changes: a run of space, or a space that is not a plain one. */
const UNFOLDED = /\s\s|[^\S ]/;

/** Space folded, and cut to the row's width. */
export function cut(text: string): string | null {
  let t = text.length > FOLDED_MAX ? text.slice(0, FOLDED_MAX) : text;
  // Tested before it is replaced: most messages have nothing to fold, and a test builds no string.
  if (UNFOLDED.test(t)) t = t.replace(/\s+/g, ' ');
  t = t.trim();
  if (!t) return null;
  return t.length > PREVIEW_CHARS ? `${t.slice(0, PREVIEW_CHARS - 1)}…` : t;
}

/** The start of the last user message of a chat request's body (parsed), or null. */
export function askedOf(body: unknown): string | null {
  if (!isObject(body) || !Array.isArray(body.messages)) return null;
  for (let i = body.messages.length - 1; i >= 0; i--) {
    const m = body.messages[i];
    if (isObject(m) && m.role === 'user') return cut(contentText(m.content));
  }
  return null;
}
