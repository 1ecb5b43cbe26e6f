import { writeFileSync } from 'node:fs';
import { it } from 'vitest';
import { createMock } from '../mock/core/handle.js';
import { FAULTS } from '../mock/core/faults/index.js';
import { CHECKS } from '../suites/index.js';
import { runAgainstMock } from './support/run.js';

it('probe', async () => {
  const out: unknown[] = [];
  const only = process.env.PROBE ? FAULTS.filter((f) => process.env.PROBE!.split(',').includes(f.name)) : FAULTS.filter((f) => !f.hostile && !f.frontend);
  await Promise.all(only.map(async (fault) => {
    const results = await runAgainstMock(CHECKS, { mock: createMock(undefined, { faults: [fault] }) });
    const failed = [...results.values()].filter((r) => r.outcome === 'fail').map((r) => r.id).sort();
    const nt = [...results.values()].filter((r) => r.outcome === 'not-tested').map((r) => `${r.id}<${(r.blockedBy ?? []).join(',')}>`).sort();
    const msgs = Object.fromEntries([...results.values()].filter((r) => r.outcome === 'fail').map((r) => [r.id, r.message?.slice(0, 300)]));
    out.push({ name: fault.name, declared: [...fault.fails].sort(), failed, nt, msgs });
  }));
  writeFileSync('/tmp/probe/out.json', JSON.stringify(out, null, 1));
}, 300_000);
