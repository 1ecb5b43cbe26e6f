// Strings a server meets in the wild and its authors rarely write down: every Unicode plane, control
// characters, the characters JavaScript and JSON treat apart, and lengths past common limits.
import fc from 'fast-check';

const fromCode = (c: number) => String.fromCodePoint(c);

/** Printable ASCII: most of what a generated string holds, so the other classes stand out. */
const ascii = fc.integer({ min: 0x20, max: 0x7e }).map(fromCode);
/** The Basic Multilingual Plane above ASCII, surrogates aside. */
const bmp = fc
  .integer({ min: 0xa0, max: 0xfffd })
  .filter((c) => c < 0xd800 || c > 0xdfff)
  .map(fromCode);
/** Planes 1 to 16: emoji, historic scripts, private use; two UTF-16 units, four UTF-8 bytes. */
export const astral = fc.integer({ min: 0x10000, max: 0x10ffff }).map(fromCode);
/** C0 and C1 controls, NUL included: JSON escapes them, many stores and terminals do not take them. */
const control = fc.oneof(fc.integer({ min: 0, max: 0x1f }), fc.integer({ min: 0x7f, max: 0x9f })).map(fromCode);
/** One each of the characters that break code written for text: JavaScript's line terminators, the
 * byte order mark, noncharacters, zero-width and bidirectional controls, a combining mark, quotes and
 * template openers, a ZWJ sequence. */
const special = fc.constantFrom(
  '\u2028',
  '\u2029',
  '\ufeff',
  '\ufffe',
  '\uffff',
  '\u200b',
  '\u200d',
  '\u202e',
  '\u0301',
  '"',
  '\\',
  "'",
  '</script>',
  '{{',
  '${',
  '%s',
  '\r\n',
  '\u{1f469}\u200d\u{1f4bb}',
);
/** Half a surrogate pair: JSON writes it as an escape (\ud800), and many parsers refuse it. */
export const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));

/** One character of any class, ASCII most of the time. */
const character = fc.oneof({ arbitrary: ascii, weight: 6 }, { arbitrary: bmp, weight: 2 }, { arbitrary: astral, weight: 2 }, { arbitrary: control, weight: 1 }, { arbitrary: special, weight: 1 });

/** Any plane: fast-check's own `binary` unit builds a table of every code point when first used
 * (a second at start-up), so it is not used. */
const anyPlane = fc.oneof(bmp, astral);

/** Valid Unicode text (no lone surrogate), empty included unless `minLength` says otherwise: printable
 * ASCII most of the time, text of the other planes now and then, and the classes above mixed in. */
export function text(maxLength = 40, minLength = 0): fc.Arbitrary<string> {
  // Built once per size: fast-check works out a string arbitrary's bias values when it is made,
  // which costs more than a thousand strings.
  const key = `${minLength}-${maxLength}`;
  let arb = texts.get(key);
  if (!arb)
    texts.set(
      key,
      (arb = fc.oneof(
        { arbitrary: fc.string({ unit: 'grapheme-ascii', minLength, maxLength }), weight: 4 },
        { arbitrary: fc.string({ unit: anyPlane, minLength, maxLength }), weight: 1 },
        { arbitrary: fc.string({ unit: character, minLength, maxLength }), weight: 1 },
      )),
    );
  return arb;
}
const texts = new Map<string, fc.Arbitrary<string>>();

/** Text of one class only, for the cases that show one class at a time. */
export const textOf = (unit: fc.Arbitrary<string>, minLength = 1, maxLength = 8) => fc.string({ unit, minLength, maxLength });

/** Past the limits servers are built with: 4 KiB (a fixed buffer), 64 KiB (a column, a frame), 1 MiB
 * (a body limit). */
export const LONG_LENGTHS = [4_097, 65_537, 1_048_577] as const;

/** A short run of printable ASCII: what a long string is made of where its length alone must be the
 * rare input (so that shrinking it away leaves no other class behind). */
export const asciiPiece = fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 8 });

/** A string of at least `min` code points: a short piece repeated (generating a megabyte character
 * by character would cost more than sending it); it shrinks as its piece and its length do. */
export const longText = (min: number, max = min + 1024, piece: fc.Arbitrary<string> = text(8, 1)) =>
  fc.tuple(piece, fc.integer({ min, max })).map(([piece, length]) => {
    // Whole repeats, then the start of one more, cut between code points (never inside a pair).
    const points = Array.from(piece);
    return piece.repeat(Math.floor(length / points.length)) + points.slice(0, length % points.length).join('');
  });

/** A string of `text`'s lengths most of the time, and now and then one past each limit of
 * LONG_LENGTHS up to `longest`: Hypothesis and Schemathesis try the boundaries of a length on purpose
 * rather than wait for chance to reach them, and a server built with a 64 KiB buffer is found only
 * by a string past it. A long string shrinks to its limit plus one, never to a short one: its length
 * is what it is about. */
export function textOrLong(maxLength: number, minLength: number, longest: (typeof LONG_LENGTHS)[number]): fc.Arbitrary<string> {
  const key = `${minLength}-${maxLength}-${longest}`;
  let arb = edgy.get(key);
  if (!arb) {
    const long = LONG_LENGTHS.filter((n) => n <= longest).map((n) => ({ arbitrary: longText(n, n + 1024, asciiPiece), weight: 1 }));
    edgy.set(key, (arb = fc.oneof({ arbitrary: text(maxLength, minLength), weight: 100 * long.length }, ...long)));
  }
  return arb;
}
const edgy = new Map<string, fc.Arbitrary<string>>();

/** An id, a name, a word: ASCII letters and digits, as a pattern such as ^[a-zA-Z0-9_-]{1,64}$ takes. */
export const identifier = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-'), minLength: 1, maxLength: 16 });

/** What a string holds that a reader of a failure needs named: `characters outside the BMP`. */
export function stringTraits(s: string): string[] {
  const traits: string[] = [];
  if (/[\ud800-\udbff][\udc00-\udfff]/.test(s)) traits.push('characters outside the BMP');
  if (/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s)) traits.push('lone surrogates');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(s)) traits.push('control characters');
  if (s.length > LONG_LENGTHS[0] - 1) traits.push(`a string of ${s.length.toLocaleString('en-US')} characters`);
  return traits;
}
