// Numbers at the edges of the machine widths servers store them in, and past them.
import fc from 'fast-check';
import { RawJson } from './case.js';

/** Each side of 8, 16, 32 and 53 bits (the last a double's exact integers), signed and not. */
export const MACHINE_EDGES = [0, 1, -1, 127, 128, 255, 256, 32_767, 32_768, 65_535, 65_536, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 2 ** 32 - 1, 2 ** 32, 2 ** 53 - 1, -(2 ** 53 - 1)];

/** Integers no double holds exactly, written as JSON text: each side of 64 bits and far past it. */
export const BEYOND_DOUBLE = [
  '9007199254740993',
  '9223372036854775807',
  '9223372036854775808',
  '-9223372036854775809',
  '18446744073709551615',
  '18446744073709551616',
  '100000000000000000000000000000',
];

/** The ends of a signed 64-bit integer, written as JSON text (no double holds the first): integers
 * a server with 64-bit fields takes as they are, and one with 32-bit fields, or doubles, does not. */
export const INT64_ENDS = ['9223372036854775807', '-9223372036854775808'] as const;

/** The machine edges past a signed 32-bit integer, 2^31 first: what a field that overflows there is
 * shrunk to. */
export const PAST_INT32 = [2 ** 31, -(2 ** 31) - 1, 2 ** 32 - 1, 2 ** 32, 2 ** 53 - 1, -(2 ** 53 - 1)];

/** An integer within [min, max], its ends and the machine edges inside it favoured. */
export function integerIn(min: number, max: number): fc.Arbitrary<number> {
  const lo = Math.max(min, Number.MIN_SAFE_INTEGER);
  const hi = Math.min(max, Number.MAX_SAFE_INTEGER);
  // A catalog at odds with itself (an output length below the declared minimum): its minimum.
  if (lo > hi) return fc.constant(lo);
  const edges = [...new Set([lo, hi, ...MACHINE_EDGES.filter((e) => e >= lo && e <= hi)])];
  return fc.oneof({ arbitrary: fc.integer({ min: lo, max: hi }), weight: 3 }, { arbitrary: fc.constantFrom(...edges), weight: 2 });
}

/** A number within [min, max] (fractions, the ends, the smallest double above min). */
export function numberIn(min: number, max: number): fc.Arbitrary<number> {
  if (min > max) return fc.constant(min);
  const edges = [...new Set([min, max, min + Number.EPSILON * Math.max(1, Math.abs(min)), (min + max) / 2])].filter((v) => v >= min && v <= max);
  return fc.oneof({ arbitrary: fc.double({ min, max, noNaN: true, noDefaultInfinity: true }), weight: 3 }, { arbitrary: fc.constantFrom(...edges), weight: 1 });
}

/** The number written in exponent form (`5e-1`, `1E+0`): the same value to JSON (RFC 8259, 6), text
 * that a hand-written number parser or a pattern for numbers may not take. */
const inExponentForm = ([n, upper]: [number, boolean]): RawJson => {
  const text = n.toExponential();
  return new RawJson(upper ? text.toUpperCase().replace('E+', 'E') : text);
};

/** The numbers of `arb`, now and then written in exponent form (a failure there stays in that form). */
export const sometimesInExponentForm = (arb: fc.Arbitrary<number>): fc.Arbitrary<number | RawJson> =>
  fc.oneof({ arbitrary: arb, weight: 7 }, { arbitrary: fc.tuple(arb, fc.boolean()).map(inExponentForm), weight: 1 });

/** A number that is not an integer: where an integer is expected, a wrong type. */
export const fraction = fc.oneof(
  fc.integer({ min: -1000, max: 100_000 }).map((n) => n + 0.5),
  fc.double({ min: -1e6, max: 1e6, noNaN: true, noInteger: true }),
);

/** Any integer a JSON parser may meet: the machine edges, and past what a double holds (raw text). */
export const anyInteger: fc.Arbitrary<number | RawJson> = fc.oneof(
  { arbitrary: fc.constantFrom(...MACHINE_EDGES), weight: 2 },
  { arbitrary: fc.integer(), weight: 2 },
  { arbitrary: fc.constantFrom(...BEYOND_DOUBLE).map((t) => new RawJson(t)), weight: 1 },
);

/** The forms of an integer's text that parse as the integer in JavaScript and not in a strict
 * integer parser: `16.0`, `1.6e1`. */
export const integerSpellings = (n: number): string[] => [`${n}.0`, `${n / 10 ** (String(Math.abs(n)).length - 1)}e${String(Math.abs(n)).length - 1}`];
