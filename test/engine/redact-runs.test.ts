// A key in pieces (issue 41): the redactor finds any run of MIN_RUN characters of a key, in each of
// its forms, wherever it stands in a text, and leaves a shorter one; a run of padding (fewer than
// MIN_KINDS different characters) is left, so the zeros of the mock's keys do not redact every
// timestamp. Its work is held as a count of characters touched on hostile texts of a megabyte, not
// as a time.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { basicCredential, CUT, MIN_RUN, REDACTED, Redactor } from '../../engine/redact.js';
import { MIN_KINDS, SecretRuns } from '../../engine/secret-runs.js';
import { DEFAULT_CONFIG } from '../../mock/config/default.js';
import { builtInWork, type Counted } from '../support/built-in-work.js';
import { keys, runsShown } from '../support/secrets.js';

/** The forms a key is redacted in. */
const formsOf = (key: string) => [key, encodeURIComponent(key), JSON.stringify(key).slice(1, -1), basicCredential(key)];
/** Characters no key of `keys` holds, nor a form of one (Basic's base64 included), nor REDACTED. */
const filler = fc.string({ unit: fc.constantFrom(...' {}":,\n!#;<>?@^|'), maxLength: 200 });
/** A run a reader learns something from (engine/secret-runs.ts): not padding. */
const informative = (run: string) => new Set(run).size >= MIN_KINDS;

describe('a run of a key', () => {
  test.prop([keys, fc.nat(3), fc.nat(200), filler, filler], { seed: 41, numRuns: 500 })('of MIN_RUN characters, in any form, is gone from the text', (key, form, at, before, after) => {
    const f = formsOf(key)[form];
    const run = f.slice(at % (f.length - MIN_RUN + 1)).slice(0, MIN_RUN);
    const out = new Redactor().add(key).text(`${before}${run}${after}`);
    if (informative(run)) expect(out).toBe(`${before}${REDACTED}${after}`);
    else expect(out).toBe(`${before}${run}${after}`);
  });

  test.prop([keys, fc.nat(3), fc.nat(200), filler, filler], { seed: 42, numRuns: 300 })('of MIN_RUN - 1 characters stays', (key, form, at, before, after) => {
    const f = formsOf(key)[form];
    const run = f.slice(at % (f.length - MIN_RUN + 2)).slice(0, MIN_RUN - 1);
    // Spaces apart, it touches no other character of the key, and no cut.
    const text = `${before} ${run} ${after}`;
    expect(new Redactor().add(key).text(text)).toBe(text);
  });

  test.prop([keys, fc.nat(100), fc.constantFrom(' ', '', '"}\n\ndata: {"content":"', '\\n', ' and '), filler, filler], { seed: 43, numRuns: 500 })(
    'split in two anywhere (two words, two SSE deltas), leaves no run of MIN_RUN characters',
    (key, at, between, before, after) => {
      const split = 1 + (at % (key.length - 1));
      const redactor = new Redactor().add(key);
      for (const f of formsOf(key)) {
        const out = redactor.text(`${before}${f.slice(0, split)}${between}${f.slice(split)}${after}`);
        expect(runsShown(out, key).filter(informative)).toEqual([]);
      }
    },
  );

  test.prop([keys, fc.array(fc.oneof(filler, fc.nat(60).map(String), fc.constant('\u2026')), { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 12 })], { seed: 44, numRuns: 300 })(
    'is found as a reading of every character finds it, though most are not read',
    (key, fillers, cuts) => {
      const runs = new SecretRuns(formsOf(key), MIN_RUN);
      // Pieces of the key between fillers, each a start, a middle or an end of it.
      const text = fillers.map((f, i) => f + key.slice(cuts[i] % key.length, (cuts[i] * 7) % (key.length + 1))).join('');
      expect(runs.spans(text)).toEqual(runs.spans(text, new Int32Array(text.length)));
    },
  );

  it('is redacted whole, however long the stretch it stands in', () => {
    const key = 'sk-proj-7QZ3VX9KJ2MNP4GHWU8BYFcT5rLd';
    const r = new Redactor().add(key);
    expect(r.text(`a ${key.slice(0, 12)} ${key.slice(12)} b`)).toBe(`a ${REDACTED} ${REDACTED} b`);
    expect(r.text(`id ${key.slice(3, 20)}${key.slice(8, 30)}.`)).toBe(`id ${REDACTED}.`);
    // Seven characters stay, an eighth beside them does not.
    expect(r.text(`x ${key.slice(0, 7)} ${key.slice(7)}`)).toBe(`x ${key.slice(0, 7)} ${REDACTED}`);
  });

  it('of a --header value is a run of a secret too; a key too short to look for is not looked for', () => {
    const r = new Redactor().add('org-Hq7ZP2mTx9VwK4').add('short');
    expect(r.text('org org-Hq7ZP2m and Hq7ZP2mTx9 short')).toBe(`org ${REDACTED} and ${REDACTED} short`);
  });
});

describe('padding', () => {
  const [alpha, beta] = DEFAULT_CONFIG.keys.map((k) => k.key);
  const r = new Redactor().add(alpha).add(beta);

  it('a run of the mock keys made of fewer than three characters stays: timestamps, counts, ids', () => {
    for (const text of ['created 1700000000', 'created 1700000001, 1700000002', 'id 12345678-0000-0000-0000-000000000000', 'the wrong key sk-conformance-wrong-key-000000000000000000'])
      expect(r.text(text)).toBe(text);
  });

  it('the mock keys, whole or in informative pieces, do not', () => {
    expect(r.text(`key ${alpha}.`)).toBe(`key ${REDACTED}.`);
    // The stretch of zeros beside an informative run is part of it.
    expect(r.text(`split ${alpha.slice(0, 18)} ${alpha.slice(18)}`)).toBe(`split ${REDACTED} ${alpha.slice(18)}`);
    expect(r.text(`beta ${beta.slice(0, 10)} ${beta.slice(10)}`)).toBe(`beta ${REDACTED} ${REDACTED}`);
  });

  it('a key that is all padding is still redacted where it stands whole', () => {
    expect(new Redactor().add('0000000000').text('id 1000000000000 and 0000000000')).toBe(`id 1${REDACTED}00 and ${REDACTED}`);
  });
});

describe('the work of redacting', () => {
  const key = 'sk-proj-7QZ3VX9KJ2MNP4GHWU8BYFcT5rLd';
  /** Every character read or copied by the redactor's built-in calls, as test/engine/sse.test.ts counts. */
  const scanned = (self: { length: number }, [needle, from = 0]: any[], found: number) => (found === -1 ? self.length : found + needle.length) - from;
  const TOUCHING: Counted[] = [
    { on: String.prototype, method: 'charCodeAt', cost: () => 1 },
    { on: String.prototype, method: 'indexOf', cost: scanned },
    { on: String.prototype, method: 'slice', cost: (_self, _args, result: string) => result.length },
    { on: String.prototype, method: 'startsWith', cost: (_self, [prefix]: string[]) => prefix.length },
    { on: String.prototype, method: 'includes', cost: (self: string) => self.length },
    { on: Map.prototype, method: 'get', cost: () => 1 },
    { on: Map.prototype, method: 'has', cost: () => 1 },
  ];
  /** Texts of about `mb` megabytes that come near a key everywhere without being it. */
  const HOSTILE: Record<string, (mb: number) => string> = {
    'the key with its last character changed': (mb) => `${key.slice(0, -1)}x `.repeat((mb * 2 ** 20) / (key.length + 1)),
    'every start of the key': (mb) =>
      Array.from({ length: key.length }, (_, i) => key.slice(0, i + 1))
        .join('~')
        .repeat((mb * 2 ** 20) / 700),
    'pieces of the key beside cuts': (mb) => `${key.slice(0, 7)}${CUT}${key.slice(-7)}`.repeat((mb * 2 ** 20) / 15),
    'nothing but cuts': (mb) => CUT.repeat(mb * 2 ** 20),
    'the key whole, over and over': (mb) => key.repeat((mb * 2 ** 20) / key.length),
    'a run of the same character a key is padded with': (mb) => '0'.repeat(mb * 2 ** 20),
  };
  const redactor = new Redactor().add(key).add(DEFAULT_CONFIG.keys[0].key).add(`${key}x`);

  for (const [name, make] of Object.entries(HOSTILE)) {
    it(`is linear in the text: ${name}`, () => {
      const perChar = [0.25, 1].map((mb) => {
        const text = make(mb);
        return builtInWork(TOUCHING, () => redactor.text(text)) / text.length;
      });
      // A few reads per character (three on most texts; beside a cut, a few per form of a key), the
      // same at a quarter of a megabyte and at one: no character is read again for each cut, or
      // for each character of a key that a stretch could extend to.
      expect(perChar[0], name).toBeLessThan(40);
      expect(perChar[1], name).toBeLessThan(perChar[0] * 1.05);
    });
  }

  it('does not grow with the length of a secret', () => {
    // A --header value of 5,000 characters, and a text of its first 2,000 cut in two, again and
    // again: each cut has a thousand characters of a start of it before, and of a middle after.
    const secret = Array.from({ length: 5000 }, (_, i) => 'abcdefghijklmnopqrstuvwxyz'[(i * 7 + (i >> 3)) % 26]).join('');
    const text = `${secret.slice(0, 1000)}${CUT}${secret.slice(1001, 2000)}|`.repeat(500);
    const perChar = builtInWork(TOUCHING, () => new Redactor().add(secret).text(text)) / text.length;
    expect(perChar).toBeLessThan(40);
  });
});
