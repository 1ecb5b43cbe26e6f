// JSON from a server is counted before it is parsed: past a limit it is a finding about the server
// (a body that is not JSON a client can take), and it is never materialised.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { bodyJson, type Exchange } from '../../engine/exchanges.js';
import { JSON_LIMITS, jsonLimitProblem, parseJson } from '../../engine/json.js';
import { readAnswer } from '../../suites/answer.js';

const small = { depth: 3, keys: 4, containers: 5 };

/** A JSON answer as the exchanges give it. */
const answered = (body: string): Exchange => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: Buffer.from(body),
  bytesRead: body.length,
  complete: true,
  durationMs: 1,
  label: 'chat completion',
  request: { method: 'POST', url: 'http://127.0.0.1/v1/chat/completions', headers: {} },
  rateLimited: false,
  retries: 0,
});

describe('the JSON limits', () => {
  it('count depth, keys and containers outside strings, on bytes and on text alike', () => {
    for (const input of ['[[[1]]]', '{"a":{"b":1},"c":[2]}', '{"[[[[{{{{":"]]]]\\"[[[[","k":"\\\\"}']) {
      expect(jsonLimitProblem(input, small)).toBeUndefined();
      expect(jsonLimitProblem(Buffer.from(input), small)).toBeUndefined();
    }
    expect(jsonLimitProblem('[[[[1]]]]', small)).toBe('JSON nested deeper than 3 levels');
    expect(jsonLimitProblem(Buffer.from('{"a":1,"b":2,"c":3,"d":4,"e":5}'), small)).toBe('JSON with more than 4 keys');
    expect(jsonLimitProblem('[[],[],[],[],[]]', small)).toBe('JSON with more than 5 objects and arrays');
  });

  test.prop([fc.json({ depthSize: 'medium' })], { seed: 28, numRuns: 300 })('agree with a parse on what they count', (text) => {
    let depth = 0;
    let keys = 0;
    let containers = 0;
    const walk = (v: unknown, d: number) => {
      if (v === null || typeof v !== 'object') return;
      containers++;
      depth = Math.max(depth, d + 1);
      const values = Array.isArray(v) ? v : Object.values(v);
      if (!Array.isArray(v)) keys += Object.keys(v).length;
      for (const x of values) walk(x, d + 1);
    };
    walk(JSON.parse(text), 0);
    expect(jsonLimitProblem(text, { depth, keys, containers })).toBeUndefined();
    if (depth) expect(jsonLimitProblem(text, { depth: depth - 1, keys, containers })).toMatch(/nested deeper/);
    if (keys) expect(jsonLimitProblem(text, { depth, keys: keys - 1, containers })).toMatch(/keys/);
    if (containers) expect(jsonLimitProblem(text, { depth, keys, containers: containers - 1 })).toMatch(/objects and arrays/);
  });

  it('make a body past them a broken served part, said as such, and parse nothing', () => {
    const deep = answered(`{"x":${'['.repeat(200_000)}${']'.repeat(200_000)}}`);
    expect(bodyJson(deep)).toEqual({ ok: false, error: `JSON nested deeper than ${JSON_LIMITS.depth} levels` });
    expect(readAnswer(deep, false).broken.served).toBe(`JSON nested deeper than ${JSON_LIMITS.depth} levels`);
    const keys = answered(`{${Array.from({ length: JSON_LIMITS.keys + 1 }, (_, i) => `"k${i}":0`).join(',')}}`);
    expect(bodyJson(keys)).toEqual({ ok: false, error: `JSON with more than ${JSON_LIMITS.keys} keys` });
  });

  it("mark where V8's quote of broken JSON was cut, as every cut is marked", () => {
    const parsed = parseJson('{"a": sk-hostile-0123456789abcdef, "b": 1}');
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error).toMatch(/"\{"a": sk-hostile…" is not valid JSON$/);
  });
});
