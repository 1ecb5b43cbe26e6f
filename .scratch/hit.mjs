import { readFileSync } from 'node:fs';
import { FAULTS } from '/work/wt-clients/dist/mock/core/faults/index.js';
import { CLIENTS } from '/work/wt-clients/dist/clients/index.js';
const data = JSON.parse(readFileSync(process.argv[2] ?? '/tmp/sweep-http.json', 'utf8'));
const byName = new Map(FAULTS.map((f) => [f.name, f]));
const skip = new Set(['every-route-404']);
const streamWay = new Set(['stream', 'abort']);
const checksOf = (f) => [...f.fails, ...(f.flakes ?? [])];
for (const client of CLIENTS) for (const flow of client.flows) {
  const id = `${client.name}.${flow.name}`;
  const onPath = (f) => !(f.on === 'stream' && !streamWay.has(flow.name));
  const faults = Object.keys(data).filter((n) => !skip.has(n)).map((n) => byName.get(n)).filter(onPath);
  const broke = (f) => data[f.name].broken.some((b) => b.id === id);
  const B = faults.filter(broke);
  const ratio = (c) => { const Fc = faults.filter((f) => checksOf(f).includes(c)); return [Fc.filter(broke).length, Fc.length]; };
  let left = [...B]; const R = [];
  while (left.length) {
    const cands = [...new Set(left.flatMap(checksOf))];
    if (!cands.length) break;
    cands.sort((a, b) => { const [ba, fa] = ratio(a), [bb, fb] = ratio(b); const sa = ba / fa, sb = bb / fb; const ca = left.filter((f) => checksOf(f).includes(a)).length, cb = left.filter((f) => checksOf(f).includes(b)).length; return (sb - sa) || (cb - ca); });
    const c = cands[0]; R.push(c); left = left.filter((f) => !checksOf(f).includes(c));
  }
  const norule = B.filter((f) => !checksOf(f).length);
  console.log(`${id}\n  greedy: ${R.map((c) => `${c}(${ratio(c).join('/')})`).join(' ')}\n  declared: ${flow.rests.map((c) => `${c}(${ratio(c).join('/')})`).join(' ')}${norule.length ? `\n  NO RULE: ${norule.map((f) => f.name).join(' ')}` : ''}`);
  const heldG = faults.filter((f) => !broke(f) && checksOf(f).some((c) => R.includes(c))).map((f) => `${f.name}[${checksOf(f).filter((c) => R.includes(c)).join(',')}]`);
  console.log(`  held(greedy) ${heldG.length}: ${heldG.join(' ')}`);
  const held = flow.rests.flatMap((c) => faults.filter((f) => checksOf(f).includes(c) && !broke(f)).map((f) => `${f.name}~${c}`));
  if (process.env.HELD) console.log(`  held: ${held.join(' ')}`);
}
// held pairs under greedy rests
