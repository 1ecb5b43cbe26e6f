import { runFlows } from '/work/wt-clients/dist/clients/run.js';
import { loadClients } from '/work/wt-clients/dist/clients/load.js';
import { CLIENTS } from '/work/wt-clients/dist/clients/index.js';
import { createMock } from '/work/wt-clients/dist/mock/core/handle.js';
import { FAULTS } from '/work/wt-clients/dist/mock/core/faults/index.js';
import { answer } from '/work/wt-clients/dist/mock/fetch.js';
import { startMockServer } from '/work/wt-clients/dist/mock/http.js';
import { Redactor } from '/work/wt-clients/dist/engine/redact.js';
import { DEFAULT_CONFIG } from '/work/wt-clients/dist/mock/config/default.js';
import { writeFileSync } from 'node:fs';
const { loaded } = await loadClients(CLIENTS);
const only = process.argv.slice(2);
const faults = FAULTS.filter((f) => !f.hostile && !f.frontend && !f.load && (!only.length || only.includes(f.name)));
const out = {};
const t0 = performance.now();
let disagree = 0;
const runOne = async (fault) => {
  const mock = createMock(undefined, { faults: [fault] });
  const server = await startMockServer({ mock });
  const baseUrl = server.url;
  const f = (input, init) => fetch(input, init);
  const r = await runFlows({ baseUrl, apiKey: DEFAULT_CONFIG.keys[0].key, models: ['mock-chat-1', 'mock-reason-1'], clients: loaded, fetch: f, timeoutMs: 3000, concurrency: 8, redactor: new Redactor() });
  const tc = performance.now(); await server.close(); 
  out[fault.name] = { fails: fault.fails, broken: r.results.filter((x) => x.outcome !== 'pass').map((x) => ({ id: x.id, rests: x.restsOn, msg: (x.message ?? '').slice(0, 200) })) };
  for (const x of r.results) {
    const expected = x.restsOn.some((c) => fault.fails.includes(c));
    const broke = x.outcome !== 'pass';
    if (expected !== broke) { disagree++; console.log(`${fault.name} [${fault.fails.join(',')}] ${x.id}: ${broke ? 'BROKE' : 'held'} ${(x.message ?? '').slice(0, 150)}`); }
  }
};
let nx = 0;
await Promise.all(Array.from({ length: Number(process.env.PAR ?? 6) }, async () => { while (nx < faults.length) await runOne(faults[nx++]); }));
console.log('faults', faults.length, 'ms', Math.round(performance.now() - t0), 'disagreements', disagree);
writeFileSync(process.env.OUT ?? '/tmp/sweep-http.json', JSON.stringify(out, null, 1));
