// What the fuzzer generates is what it claims: a request it calls valid is one of 2.1 within what the
// catalog declares, an invalid one is not, an edge one is still JSON; the text sent is the text meant
// (a key twice, an integer no double holds, JSON cut short); the same seed gives the same requests;
// the breadth list starts with one wrong type for each field of 2.1.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { validator } from '../../schemas/index.js';
import { DEFAULT_CONFIG } from '../../mock/config/default.js';
import { parameterProblem } from '../../mock/core/validate.js';
import { RawJson, wire, type FuzzCase } from '../../suites/fuzz/case.js';
import { casesFor } from '../../suites/fuzz/cases.js';
import { FIELDS, wrongTypes } from '../../suites/fuzz/fields.js';
import { caseAt } from '../../suites/fuzz/session.js';
import type { ModelSpace, Space } from '../../suites/fuzz/space.js';

const validRequest = validator('request');
const defs = new Map(DEFAULT_CONFIG.models.map((m) => [m.id, m]));
/** The models of the built-in key, as the catalog declares them; and one the catalog does not describe. */
const described: ModelSpace[] = ['mock-chat-1', 'mock-reason-1'].map((id) => ({ id, params: defs.get(id)!.parameters as ModelSpace['params'], outputLength: defs.get(id)!.max_output_tokens }));
const space: Space = { models: [...described, { id: 'undescribed-1' }] };
const cases = casesFor(space);
const ids = space.models.map((m) => m.id);

const parsed = (c: FuzzCase): { ok: true; value: Record<string, unknown> } | { ok: false } => {
  try {
    return { ok: true, value: JSON.parse(wire(c)) };
  } catch {
    return { ok: false };
  }
};

/** Why a case is not a request the server owes an answer, or nothing when it is one. */
function wrongness(c: FuzzCase): string | undefined {
  const json = parsed(c);
  if (!json.ok) return 'not JSON';
  const v = validRequest(json.value);
  if (!v.ok) return v.errors.join('; ');
  if (typeof json.value.model !== 'string' || !ids.includes(json.value.model)) return 'an unknown model';
  const def = defs.get(json.value.model);
  return def ? parameterProblem(json.value, def)?.message : undefined;
}

describe('generated requests', () => {
  test.prop([cases.random], { seed: 21, numRuns: 400 })('are what they are said to be', (c) => {
    if (c.expect === 'served') expect(wrongness(c), JSON.stringify(c.body).slice(0, 300)).toBeUndefined();
    if (c.expect === 'refused') expect(wrongness(c), `${c.what}: ${wire(c).slice(0, 300)}`).toBeDefined();
    if (c.expect === 'either') expect(parsed(c).ok, c.what).toBe(true);
    // Streaming options only where a stream is asked for, as OpenAI-compatible services require.
    if (c.expect === 'served' && c.body.stream_options !== undefined) expect(c.body.stream).toBe(true);
  });

  it('holds each case of the breadth list to the same, each kind of request once', () => {
    const all = cases.breadth.map((_, i) => caseAt(cases, 3, i).value.value);
    for (const c of all) {
      if (c.expect === 'served') expect(wrongness(c), c.what).toBeUndefined();
      if (c.expect === 'refused') expect(wrongness(c), c.what).toBeDefined();
    }
    const kinds = new Set(all.map((c) => c.what));
    for (const what of ['a request without model', 'messages empty', 'JSON cut short', 'model written twice', 'a lone surrogate in content', 'content of 1,048,577 characters'])
      expect(kinds).toContain(what);
  });

  it('starts the breadth list with one wrong type for each field of 2.1, then the rare inputs', () => {
    const first = FIELDS.map((_, i) => caseAt(cases, 1, i).value.value);
    expect(first.map((c) => c.what.split(' as ')[0])).toEqual(FIELDS.map((f) => f.name));
    FIELDS.forEach((f, i) => {
      expect(wrongTypes(f).length, f.name).toBeGreaterThan(0);
      expect(first[i].expect).toBe('refused');
    });
    // The errors suite's own request: the pass and errors.messages-not-array share its answer.
    expect(wire(first.find((c) => c.what.startsWith('messages'))!)).toBe('{"model":"mock-chat-1","messages":"hello","max_tokens":16}');
    const [rare, legal] = [FIELDS.length, FIELDS.length + 1].map((i) => caseAt(cases, 1, i).value.value);
    expect(rare.expect).toBe('served');
    expect(legal.expect).toBe('either');
  });

  it('gives the same requests for the same seed, and others for another', () => {
    const run = (seed: number) => Array.from({ length: 260 }, (_, i) => wire(caseAt(cases, seed, i).value.value));
    expect(run(9)).toEqual(run(9));
    expect(run(10)).not.toEqual(run(9));
    // A longer session begins with the requests of a shorter one: each case has its own generator.
    expect(run(9).slice(0, 40)).toEqual(Array.from({ length: 40 }, (_, i) => wire(caseAt(casesFor(space), 9, i).value.value)));
  });

  it('tries the edges on purpose, where each kind of request takes them', () => {
    /** Requests of the first kind of the breadth list whose name matches. */
    const drawn = (what: RegExp, n = 300) => fc.sample(cases.breadth.find((arb) => what.test(fc.sample(arb, { seed: 1, numRuns: 1 })[0].what))!, { seed: 7, numRuns: n });
    const some = (what: RegExp, holds: (b: Record<string, any>) => boolean, n?: number) => drawn(what, n).some((c) => holds(c.body));
    const stops = (b: Record<string, any>): unknown[] => (Array.isArray(b.stop) ? b.stop : [b.stop]);
    // Valid requests: a stop sequence past 64 KiB, seeds past 32 bits and at the ends of 64 (as text
    // no double holds), sampling numbers in exponent form.
    const valid = /^a valid request$/;
    expect(some(valid, (b) => stops(b).some((x) => typeof x === 'string' && x.length > 65_536))).toBe(true);
    expect(some(valid, (b) => typeof b.seed === 'number' && b.seed > 2 ** 31 - 1)).toBe(true);
    expect(some(valid, (b) => b.seed instanceof RawJson && /^-?922337203685477580[78]$/.test(b.seed.text))).toBe(true);
    expect(some(valid, (b) => b.temperature instanceof RawJson && /e/i.test(b.temperature.text))).toBe(true);
    // Invalid: max_tokens past 32 bits and past what a double holds, thousands of stop sequences.
    expect(some(/^max_tokens above/, (b) => typeof b.max_tokens === 'number' && b.max_tokens > 2 ** 31 - 1, 100)).toBe(true);
    expect(some(/^max_tokens above/, (b) => b.max_tokens instanceof RawJson, 100)).toBe(true);
    expect(some(/^stop with more than/, (b) => b.stop.length >= 1_000, 100)).toBe(true);
    // Legal JSON that parsers reject: nesting 1,000 and 10,000 deep, arrays of 100,000 items.
    expect(some(/nested/, (b) => b.x_conformance_nested instanceof RawJson && b.x_conformance_nested.text.length === 20_000, 50)).toBe(true);
    expect(some(/an array of/, (b) => Object.values(b).some((v) => v instanceof RawJson && v.text.length === 200_001), 50)).toBe(true);
  });

  it('shrinks a case to cases of the same kind', () => {
    const tried = caseAt(cases, 1, FIELDS.length);
    const shrunk = [...tried.arb.shrink(tried.value.value, tried.value.context).take(50)];
    expect(shrunk.length).toBeGreaterThan(0);
    for (const s of shrunk) expect(wrongness(s.value), wire(s.value).slice(0, 200)).toBeUndefined();
  });
});

describe('the text sent', () => {
  it('writes a key twice, integers no double holds, nesting and cuts as meant', () => {
    const body = { model: 'm', messages: [], seed: new RawJson('18446744073709551616'), x: new RawJson('[[[]]]') };
    expect(wire({ expect: 'either', what: '', body })).toBe('{"model":"m","messages":[],"seed":18446744073709551616,"x":[[[]]]}');
    expect(wire({ expect: 'either', what: '', body, duplicate: 'model' })).toBe('{"model":"m","model":"m","messages":[],"seed":18446744073709551616,"x":[[[]]]}');
    expect(wire({ expect: 'refused', what: '', body: { model: 'm' }, cut: 5 })).toBe('{"mod');
    // A string that looks like the marks stays a string.
    expect(JSON.parse(wire({ expect: 'served', what: '', body: { s: '\u0000fuzz-raw\u0000x\u0000fuzz-raw\u0000' } })).s).toBe('\u0000fuzz-raw\u0000x\u0000fuzz-raw\u0000');
  });

  test.prop([fc.string({ unit: 'binary' })], { seed: 5, numRuns: 200 })('keeps any string exactly', (s) => {
    expect(JSON.parse(wire({ expect: 'served', what: '', body: { s } })).s).toBe(s);
  });
});
