// docs/reference/checks.md: every check of the registry, suite by suite, with its id, section,
// level, paths, the parts of an answer it reads and owns, its audit line and the faults that prove it.
import { ownsOf, proofSentence, provenBy } from '../../bin/proof.js';
import { coverageFigure } from '../../suites/coverage.js';
import { SUITES, type ApiCheck } from '../../suites/index.js';
import { code, generated, table } from './markdown.js';

const axes = (c: ApiCheck) => Object.keys(c.paths ?? {});
const unique = <T>(xs: T[]) => [...new Set(xs)];
/** The sections a suite's checks enforce, in the document's order. */
const sectionsOf = (checks: ApiCheck[]) =>
  unique(checks.flatMap((c) => c.section.split(',').map((s) => s.trim())))
    .filter(Boolean)
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));

function checkEntry(c: ApiCheck): string {
  const lines = [`### ${c.id}`, '', `${c.title}`, ''];
  const facts = [`§${c.section}`, `**${c.level}**`];
  if (axes(c).length) facts.push(`paths: ${axes(c).join(' × ')}`);
  lines.push(`${facts.join(' · ')}`, '');
  if (c.reads?.length) lines.push(`- reads: ${c.reads.map(code).join(', ')}`);
  const owns = ownsOf(c.id);
  if (owns.length) lines.push(`- owns: ${owns.map(code).join(', ')}`);
  if (c.convention) lines.push(`- convention: ${c.convention}`);
  if (c.audit) lines.push(`- audit: ${c.audit}`);
  const proof = provenBy(c.id);
  lines.push(`- proven by: ${proof.length ? proof.map(code).join(', ') : 'no fault yet'}`);
  return lines.join('\n');
}

export function checksPage(): string {
  const f = coverageFigure();
  const suites = Object.entries(SUITES);
  const out = [
    generated('suites/index.ts (the registry), suites/coverage.ts and mock/core/faults (the catalogue)'),
    '',
    '# Checks',
    '',
    `**${proofSentence()}** Every check fails against a mock broken in the way the check is about (its faults, in [faults.md](faults.md)) and passes against the correct one; test/faults.test.ts holds each fault to the checks it declares.`,
    '',
    `**${f.ruleBearing} rule-bearing statements of the document: ${f.mapped} mapped to checks, ${f.untestable} not testable from outside, ${f.gaps} gaps.** (\`conformance list --coverage\` prints the map; test/coverage.test.ts keeps it whole.)`,
    '',
    'What the levels, paths, reads and owns mean: [verdicts and attribution](../verdicts.md). The same list, in a terminal: `conformance list` (`--json` for data).',
    '',
    table(
      ['suite', 'sections', 'checks (must / should)', 'paths'],
      suites.map(([name, checks]) => {
        const musts = checks.filter((c) => c.level === 'must').length;
        return [`[${name}](#${name})`, sectionsOf(checks).join(', '), `${checks.length} (${musts} / ${checks.length - musts})`, unique(checks.flatMap(axes)).join(' × ')];
      }),
    ),
  ];
  for (const [name, checks] of suites) out.push('', `## ${name}`, '', ...checks.flatMap((c) => [checkEntry(c), '']));
  return `${out.join('\n').trimEnd()}\n`;
}
