// The errors suite passes the correct mock, and a missing prerequisite reports not-tested. That
// each check fails is proven by the fault catalogue (mock/core/faults/errors.ts, test/faults.test.ts).
import { describe, expect, it } from 'vitest';
import type { Fault } from '../../mock/core/faults/index.js';
import { isModels, withJson } from '../../mock/core/faults/rewrite.js';
import { createMock } from '../../mock/core/handle.js';
import { ERRORS } from '../../suites/errors.js';
import { notPassing, runAgainstMock } from '../support/run.js';

/** A mock with a deviation of its own, for the cases no fault of the catalogue sets up. */
const mockWith = (fault: Omit<Fault, 'name' | 'description' | 'fails'>) => createMock(undefined, { faults: [{ name: 'test', description: 'test', fails: [], ...fault }] });

describe('errors suite', () => {
  it('passes the correct mock', async () => {
    const results = await runAgainstMock(ERRORS);
    expect(notPassing(results)).toEqual([]);
    expect(results.size).toBe(ERRORS.length);
  });

  it('proves nothing (not-tested) when the primary key itself is refused', async () => {
    const results = await runAgainstMock(ERRORS, { target: { apiKey: 'sk-not-a-key-of-the-mock-000000' } });
    expect([...results.values()].filter((r) => r.outcome !== 'not-tested').map((r) => r.id)).toEqual([]);
  });

  it('checks that need a model are not-tested when none is listed, the others still run', async () => {
    const mock = mockWith({ reply: (r, req) => (isModels(req) ? withJson(r, (b) => void (b.data = [])) : r) });
    const results = await runAgainstMock(ERRORS, { mock });
    const outcome = (id: string) => results.get(id)?.outcome;
    for (const id of ['errors.missing-messages', 'errors.messages-not-array', 'errors.unknown-role']) expect(outcome(id), id).toBe('not-tested');
    for (const id of ['errors.missing-model', 'errors.invalid-json', 'errors.unknown-model', 'errors.error-body']) expect(outcome(id), id).toBe('pass');
    expect(outcome('errors.missing-field-4xx')).toBe('not-tested');
    expect(results.get('errors.missing-messages')?.message).toMatch(/--model/);
  });
});
