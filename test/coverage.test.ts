// The map of the document is whole and true: every statement of chat-api.md is quoted once, in
// order, mapped to checks that exist, to a reason it cannot be tested, or to why it states no rule;
// the repository's copy of the document is the document (its checksum, kept beside it, is the
// original's); the README states the figure as it is.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COVERAGE, coverageFigure, isMapped, ruleBearing } from '../suites/coverage.js';
import { CHECKS } from '../suites/index.js';
import { statements } from '../suites/statements.js';

const at = (rel: string) => fileURLToPath(new URL(rel, import.meta.url));
const COPY = at('../schemas/spec/chat-api.md');
const document = readFileSync(COPY, 'utf8');

describe('the coverage map', () => {
  it("quotes the document itself: the copy has the original's SHA-256 (schemas/spec/chat-api.md.sha256)", () => {
    // Written with `sha256sum chat-api.md` from the original; `sha256sum -c` checks it too.
    const [sum, name] = readFileSync(`${COPY}.sha256`, 'utf8').trim().split(/\s+/);
    expect(name).toBe('chat-api.md');
    expect(createHash('sha256').update(readFileSync(COPY)).digest('hex')).toBe(sum);
  });

  it('quotes every statement of the document once, in order, each under its section', () => {
    const found = statements(document).map((s) => `§${s.section} ${s.text}`);
    const mapped = COVERAGE.map((c) => `§${c.section} ${c.quote}`);
    const unquoted = found.filter((s) => !mapped.includes(s));
    const absent = mapped.filter((s) => !found.includes(s));
    expect(unquoted, 'statements of the document that the map does not quote').toEqual([]);
    expect(absent, 'quotes that are not in the document').toEqual([]);
    expect(mapped).toEqual(found);
  });

  it('maps only to checks that exist, and every must of the registry enforces some statement', () => {
    const ids = new Set(CHECKS.map((c) => c.id));
    const unknown = COVERAGE.filter(isMapped).flatMap((c) => c.checks.filter((id) => !ids.has(id)).map((id) => `§${c.section}: ${id}`));
    expect(unknown).toEqual([]);
    const enforcing = new Set(COVERAGE.filter(isMapped).flatMap((c) => c.checks));
    expect(CHECKS.filter((c) => c.level === 'must' && !enforcing.has(c.id)).map((c) => c.id)).toEqual([]);
  });

  it('leaves no rule-bearing statement unmapped', () => {
    expect(COVERAGE.filter((c) => ruleBearing(c) && isMapped(c) && !c.checks.length).map((c) => c.quote)).toEqual([]);
  });

  it('README.md states the coverage figure as it is', () => {
    const f = coverageFigure();
    const readme = readFileSync(at('../README.md'), 'utf8');
    expect(readme).toContain(`**${f.ruleBearing} rule-bearing statements of the document: ${f.mapped} mapped to checks, ${f.untestable} not testable from outside, ${f.gaps} gaps.**`);
  });
});
