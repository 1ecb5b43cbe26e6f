// docs/reference/faults.md: every fault of the mock's catalogue, by what it is for, with the checks
// it makes fail, the path it hides on and the parameters it takes.
import { catalogueSentence, type FaultKind, kindOf, proofSentence } from '../../bin/proof.js';
import { FAULTS, type Fault } from '../../mock/core/faults/index.js';
import { code, generated, table } from './markdown.js';

const KINDS: { kind: FaultKind; heading: string; intro: string }[] = [
  { kind: 'proves', heading: 'Faults that prove checks', intro: 'Each makes exactly the checks it names fail, and no other; `on` is the one path it hides on, which every failing path names.' },
  { kind: 'legal', heading: 'Legal variations', intro: 'Answers the document allows, in forms real servers send: every check must pass against each.' },
  { kind: 'hostile', heading: 'Hostile transports', intro: 'They break HTTP itself; every run against them ends within its limits, with evidence. They prove the runner, no check.' },
  {
    kind: 'unruled',
    heading: 'Faults only the clients show',
    intro: 'Every check passes, and the client flows named break (`conformance clients`): a rule the kit lacks, which the report says plainly. The client sweep holds each to its flows.',
  },
  { kind: 'frontend', heading: 'Failures for frontends', intro: 'What a client must handle (a 429, a dropped stream); not deviations from the document, so they prove no check.' },
];

const params = (f: Fault) =>
  Object.entries(f.params ?? {})
    .map(([name, p]) => `${code(`${name}=${p.default}`)}: ${p.describe}`)
    .join('; ');

export function faultsPage(): string {
  const out = [
    generated('mock/core/faults (the catalogue)'),
    '',
    '# Faults',
    '',
    `**${proofSentence()}** ${catalogueSentence()}`,
    '',
    'How to serve a fault (for every request, per request, per scenario, at a rate), its parameters and `times=N`: [the mock](../mock.md#faults-a-frontend-must-handle). `conformance mock --list-faults` prints this list.',
  ];
  for (const { kind, heading, intro } of KINDS) {
    const faults = FAULTS.filter((f) => kindOf(f) === kind);
    if (!faults.length) continue;
    const withParams = faults.some((f) => f.params);
    const head = ['fault', 'what it does', ...(kind === 'proves' ? ['fails', 'on'] : []), ...(kind === 'unruled' ? ['breaks the flows'] : []), ...(withParams ? ['parameters'] : [])];
    const rows = faults.map((f) => [
      code(f.name),
      f.description,
      ...(kind === 'proves' ? [f.fails.map(code).join(', '), f.on ? code(f.on) : ''] : []),
      ...(kind === 'unruled' ? [(f.breaksFlowsOnly ?? []).map(code).join(', ')] : []),
      ...(withParams ? [params(f)] : []),
    ]);
    out.push('', `## ${heading}`, '', `${intro} (${faults.length})`, '', table(head, rows));
  }
  return `${out.join('\n')}\n`;
}
