// Where a JSON string ends, in bytes or characters: what every scan that counts a JSON text's
// structure before parsing skips; and how many characters could open a level, which spares most texts
// that scan. No Node API, so the mock's core (which runs in a page too) uses it.

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

/** How many of `input`'s characters are `char`, counted up to `max + 1` with a native search. */
function countOf(input: Uint8Array | string, char: string, max: number): number {
  let n = 0;
  if (typeof input === 'string') for (let at = input.indexOf(char); at >= 0 && n <= max; at = input.indexOf(char, at + 1)) n++;
  else for (let at = input.indexOf(char.charCodeAt(0)); at >= 0 && n <= max; at = input.indexOf(char.charCodeAt(0), at + 1)) n++;
  return n;
}

/** How many of `input`'s characters open an object or an array, strings included, up to `max + 1`.
 * No text nests deeper than that: where it is within a depth limit, the text cannot be past it, and a
 * scan a character at a time (some 17 instructions each, counted on both sides) is spared. A chat request or answer has a
 * few such characters, each found in one call. */
export function openBrackets(input: Uint8Array | string, max: number): number {
  const objects = countOf(input, '{', max);
  return objects > max ? objects : objects + countOf(input, '[', max - objects);
}
