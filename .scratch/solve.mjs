import { readFileSync } from 'node:fs';
import { FAULTS } from '/work/wt-clients/dist/mock/core/faults/index.js';
import { CLIENTS } from '/work/wt-clients/dist/clients/index.js';
const data = JSON.parse(readFileSync(process.argv[2] ?? '/tmp/sweep-http.json', 'utf8'));
const byName = new Map(FAULTS.map((f) => [f.name, f]));
const streamWay = new Set(['stream', 'abort']);
for (const client of CLIENTS) for (const flow of client.flows) {
  const id = `${client.name}.${flow.name}`;
  const B = [], N = [];
  for (const [name, d] of Object.entries(data)) {
    const f = byName.get(name);
    const broke = d.broken.some((b) => b.id === id);
    if (broke) B.push(f);
    else if (!(f.on === 'stream' && !streamWay.has(flow.name))) N.push(f);
  }
  const forbidden = new Set(N.flatMap((f) => f.fails));
  const R = [...new Set(B.flatMap((f) => f.fails))].filter((c) => !forbidden.has(c)).sort();
  const contra = B.filter((f) => !f.fails.some((c) => !forbidden.has(c)));
  const declared = [...flow.rests].sort();
  console.log(`\n${id}\n  measured: ${R.join(' ')}\n  declared: ${declared.join(' ')}`);
  for (const f of contra) console.log(`  UNEXPLAINED ${f.name} [${f.fails.join(',')}] ${data[f.name].broken.find((b) => b.id === id).msg.slice(0, 160)}`);
}
