// The one place where a text a verdict carries is bounded: its message, notes, label, path and
// run notes, and each field of its evidence. Redacted first, then cut: a key that straddles the
// cut is still whole when the redactor looks, so no report shows a piece of it. Whatever a check
// or a server put in a text, a report holds at most these many characters of it.
import { CUT, type Redactor } from './redact.js';

/** The most characters kept of each kind of text, per path (or per exchange of its evidence). */
export const BOUNDS = {
  /** A path's message: what was seen, quoted, fits; a whole answer quoted twice does not. */
  message: 2_000,
  /** A check's message: the messages of its deciding paths, each after its label. */
  checkMessage: 8_000,
  note: 500,
  /** A path's label, and each string value of its path (a model id from the model list). */
  label: 200,
  /** The start of a body, received or sent. */
  excerpt: 1_200,
  url: 2_000,
  header: 500,
  /** A transport error, as undici or the decoder said it. */
  error: 500,
  /** A command that replays a request: its body cut past this (engine/curl.ts). A fuzz finding's
   * smallest case may be a string of 64 KiB, and its command must still replay it. */
  curl: 80_000,
  /** A command of a report whose commands already hold REPORT_CURLS characters (report/boundary.ts). */
  curlPastBudget: 4_000,
} as const;

/** Of an original longer than the text given (a window of a body), how to say its size. */
export interface Whole {
  length: number;
  unit: 'characters' | 'bytes';
}

/** `text` redacted, then cut to at most `max` characters, a mark saying how long the whole was
 * included: bounding a bounded text again changes nothing. Only a window a little longer than `max`
 * is redacted: the rest could not be shown anyway. `whole`: the original that `text` is already a
 * window of. */
export function bounded(text: string, max: number, redactor: Redactor, whole?: Whole): string {
  const windowed = whole !== undefined || text.length > max + redactor.longestForm();
  const window = text.length > max + redactor.longestForm() ? text.slice(0, max + redactor.longestForm()) : text;
  // The window's end is a cut too: marked, so a piece of a key it split is redacted.
  const clean = redactor.text(windowed ? window + CUT : window);
  if (!windowed && clean.length <= max) return clean;
  const all = whole ?? { length: text.length, unit: 'characters' };
  const mark = `${CUT} [${all.length} ${all.unit} in all]`;
  const kept = clean.slice(0, Math.max(0, Math.min(max - mark.length, windowed ? clean.length - CUT.length : clean.length)));
  return `${kept}${mark}`;
}

/** Control characters (but tab, line feed and carriage return) made visible as `\xNN`: the bytes of
 * a body that may be garbage, shown without acting on what displays them. */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
