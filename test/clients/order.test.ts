// The order in which a run's flows start: a flow whose client sleeps (its backoff before a retry)
// starts first, so that the sleep overlaps the other flows instead of ending the run after them; the
// rest are taken in turn from each client. The report keeps the matrix's order whatever the start.
import { describe, expect, it } from 'vitest';
import { pass } from '../../engine/check.js';
import { FLOWS, type AnyClient } from '../../clients/flow.js';
import { runFlows } from '../../clients/run.js';
import { redactorFor } from '../../engine/runner.js';

const started: string[] = [];
const client = (name: string): AnyClient => ({
  name,
  title: name,
  packages: [],
  load: async () => ({}),
  absent: {},
  flows: (['completion', 'stream', 'retry'] as const).map((flow) => ({
    name: flow,
    does: flow,
    rests: [],
    run: async (_sdk: unknown, ctx: { model: string }) => {
      started.push(`${name}.${flow} ${ctx.model}`);
      return pass();
    },
  })),
});

describe('the flows of a run', () => {
  it('start with those whose client sleeps, then in turn from each client; reported in the matrix order', async () => {
    expect(FLOWS.filter((f) => 'sleeps' in f && f.sleeps).map((f) => f.name)).toEqual(['retry']);
    const { results } = await runFlows({
      baseUrl: 'http://127.0.0.1:9',
      apiKey: 'k',
      models: ['m1', 'm2'],
      clients: [client('a'), client('b')].map((c) => ({ client: c, sdk: {} })),
      fetch: async () => {
        throw new Error('these flows send nothing');
      },
      timeoutMs: 60_000,
      // One at a time: the order they start in is the order they are taken.
      concurrency: 1,
      redactor: redactorFor({ apiKey: 'k', headers: {} }),
    });
    expect(started).toEqual([
      'a.retry m1',
      'b.retry m1',
      'a.retry m2',
      'b.retry m2',
      'a.completion m1',
      'b.completion m1',
      'a.completion m2',
      'b.completion m2',
      'a.stream m1',
      'b.stream m1',
      'a.stream m2',
      'b.stream m2',
    ]);
    expect(results.map((r) => r.id)).toEqual(['a.completion', 'a.stream', 'a.retry', 'b.completion', 'b.stream', 'b.retry']);
  });
});
