// Every text a verdict carries is redacted, then cut, in one place (engine/bounded.ts): a key at any
// offset of a text, straddling any cut (the engine's own, a suite's short show, V8's quote of a
// body it could not parse, a window taken from a body's end), leaves no piece of itself behind.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { BOUNDS, bounded, printable } from '../../engine/bounded.js';
import { excerpt } from '../../engine/exchanges.js';
import { parseJson } from '../../engine/json.js';
import { Redactor, REDACTED, shellVariable } from '../../engine/redact.js';
import { keys, piecesShown } from '../support/secrets.js';

const filler = fc.string({ unit: fc.constantFrom(...'abcdefghij {}":,[]\n\\'), maxLength: 3000 });

/** The ways a text is cut before the engine sees it, as the suites and V8 cut them. */
const CUTS: Record<string, (s: string, n: number) => string> = {
  none: (s) => s,
  'a suite show': (s, n) => (s.length > n ? `${s.slice(0, n)}…` : s),
  'a window from the end': (s, n) => (s.length > n ? `…${s.slice(-n)}` : s),
  'an excerpt': (s, n) => excerpt(s, n),
  "V8's quote of broken JSON": (s) => {
    const parsed = parseJson(`{"a": ${s}}`);
    return parsed.ok ? s : parsed.error;
  },
};

/** `length` characters of `text`, repeated or cut to fit. */
const padTo = (text: string, length: number) => (length > 0 ? (text || 'a').repeat(Math.ceil(length / (text.length || 1)) + 1).slice(0, length) : '');

describe('a key straddling every cut', () => {
  test.prop([keys, filler, filler, fc.constantFrom(...Object.keys(CUTS)), fc.integer({ min: 1, max: 1500 }), fc.constantFrom(...Object.values(BOUNDS)), fc.boolean(), fc.nat(60)], {
    seed: 28,
    numRuns: 1000,
  })('leaves no piece of four characters or more in the bounded text', (key, before, after, how, n, max, atSuiteCut, split) => {
    const redactor = new Redactor().add(key, shellVariable('CONFORMANCE_API_KEY'));
    // The key straddles the cut: `k` of its characters on the near side of it.
    const k = Math.min(split, key.length);
    const cutAt = atSuiteCut && how !== 'none' ? n : max;
    const original = how === 'a window from the end' ? `${before}${key}${padTo(after, n - (key.length - k))}` : `${padTo(before, cutAt - k)}${key}${after}`;
    const text = CUTS[how](original, n);
    const out = bounded(text, max, redactor);
    expect(piecesShown(out, key)).toEqual([]);
    expect(out.length).toBeLessThanOrEqual(max);
  });

  test.prop([keys, fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 1, max: 300 })], { seed: 29, numRuns: 300 })('at every offset of every cut the engine makes', (key, offset, max) => {
    const redactor = new Redactor().add(key);
    const text = `${'a'.repeat(offset)}${key}${'b'.repeat(100)}`;
    expect(piecesShown(bounded(text, max, redactor), key)).toEqual([]);
    // A window of a longer whole (the start of a body) is a cut too.
    expect(piecesShown(bounded(text.slice(0, max + offset / 2), max, redactor, { length: 10_000, unit: 'bytes' }), key)).toEqual([]);
  });

  it('is redacted in full where no cut split it', () => {
    const key = 'sk-0123456789BFGHIJKLMNOP';
    expect(bounded(`model-${key}`, 200, new Redactor().add(key))).toBe(`model-${REDACTED}`);
  });
});

describe('bounded', () => {
  const redactor = new Redactor().add('sk-secret-0000000000000000');

  it('keeps a short text as it is, redacted', () => {
    expect(bounded('no secret here', 100, redactor)).toBe('no secret here');
    expect(bounded('key sk-secret-0000000000000000 shown', 100, redactor)).toBe(`key ${REDACTED} shown`);
  });

  it('cuts a long one, saying how long it was', () => {
    const out = bounded('x'.repeat(10_000), 100, redactor);
    // The mark is counted in the bound: a bounded text bounded again is the same text.
    expect(out).toBe(`${'x'.repeat(73)}… [10000 characters in all]`);
    expect(out).toHaveLength(100);
    expect(bounded(out, 100, redactor)).toBe(out);
    expect(bounded('y'.repeat(50), 100, redactor, { length: 8_000_000, unit: 'bytes' })).toBe(`${'y'.repeat(50)}… [8000000 bytes in all]`);
  });

  it('makes control characters visible in a body', () => {
    expect(printable('a\x1b]52;c;x\x07\tb\n')).toBe('a\\x1b]52;c;x\\x07\tb\n');
  });
});
