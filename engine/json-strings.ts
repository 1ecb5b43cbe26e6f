// Where a JSON string ends, in bytes or characters: what every scan that counts a JSON text's
// structure before parsing skips. No Node API, so the mock's core (which runs in a page too) uses it.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Where the string opened before `from` ends: its next quote that no backslash escapes (the end
 * of the input when there is none). Found natively: most of a large body is inside its strings. */
export function closingQuote(input: Uint8Array | string, from: number): number {
  for (let at = from; ; at++) {
    at = typeof input === 'string' ? input.indexOf('"', at) : input.indexOf(QUOTE, at);
    if (at < 0) return input.length;
    let backslashes = 0;
    while (at - 1 - backslashes >= from && (typeof input === 'string' ? input.charCodeAt(at - 1 - backslashes) : input[at - 1 - backslashes]) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}
