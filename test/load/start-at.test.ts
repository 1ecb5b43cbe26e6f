// A sweep across processes that is one sweep (docs/load.md): processes given the same --start-at
// begin each step at the same instant, the first at that instant and each next one a slot later;
// their merged report says how together they began, and refuses parts of another schedule. What is
// asserted is the schedule each process kept and reported, never how fast it kept it: a process that
// reaches an instant late says how late.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../mock/config/default.js';
import { createMock } from '../../mock/core/handle.js';
import { withPace } from '../../mock/core/timing.js';
import { startMockServer, type MockServer } from '../../mock/http.js';
import type { RawReport } from '../../report/report.js';
import { mergeLoads, slotOf } from '../../suites/load/session.js';
import { UsageError } from '../../suites/session.js';
import { cli } from '../support/cli.js';
import { within } from '../support/machine.js';
import { KEY } from '../support/run.js';

const PROCESSES = 3;
const DURATION_MS = 500;

// Answers at once: the processes' answers alone come in well before the instant.
const mock = createMock(withPace(DEFAULT_CONFIG, 'instant'));
let server: MockServer;
beforeAll(async () => {
  server = await startMockServer({ mock });
});
afterAll(() => server.close());

describe('conformance load --start-at', () => {
  it('processes given one instant begin every step at the same instants, and their merge says how together they began', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'load-start-at-'));
    // Far enough ahead for the processes to start and send the mix alone, as the machine is now; one
    // that gets there late begins late and says so, which the assertions allow.
    const at = Date.now() + within(4_000);
    const runs = await Promise.all(
      Array.from({ length: PROCESSES }, (_, i) =>
        cli([
          'load',
          '--base-url',
          server.url,
          '--api-key',
          KEY,
          '--concurrency',
          '1,2',
          '--duration',
          `${DURATION_MS}ms`,
          '--start-at',
          String(at),
          '--reporter',
          `json=${join(dir, `part-${i}.json`)}`,
        ]),
      ),
    );
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const parts = runs.map((_, i) => join(dir, `part-${i}.json`));
    const reports = parts.map((file) => JSON.parse(readFileSync(file, 'utf8')) as RawReport);
    for (const report of reports) {
      const [alone, ...sweep] = report.load!.steps;
      expect(alone.scheduledAt).toBeUndefined();
      expect(sweep.map((s) => s.scheduledAt)).toEqual([at, at + slotOf(DURATION_MS)]);
      for (const s of sweep) expect(s.startedLateMs).toBeGreaterThanOrEqual(0);
    }
    const merged = await cli(['load', '--merge', ...parts, '--reporter', `json=${join(dir, 'merged.json')}`]);
    expect(merged.code, merged.stderr).toBe(0);
    const one = JSON.parse(readFileSync(join(dir, 'merged.json'), 'utf8')) as RawReport;
    expect(one.load!.steps.slice(1).map((s) => [s.label, s.concurrency, s.scheduledAt])).toEqual([
      ['concurrency 1 × 3 processes', 3, at],
      ['concurrency 2 × 3 processes', 6, at + slotOf(DURATION_MS)],
    ]);
    const latest = Math.max(...reports.flatMap((r) => r.load!.steps.map((s) => s.startedLateMs ?? 0)));
    expect(one.notes).toContainEqual(expect.stringMatching(new RegExp(`^every step began at the instant --start-at set for it in each process, the latest ${latest} ms after it`)));

    // A part of another schedule is no part of this sweep: the merge names it.
    const other = JSON.parse(readFileSync(parts[1], 'utf8')) as RawReport;
    other.load!.steps[1].scheduledAt = at + 1_000;
    writeFileSync(join(dir, 'other.json'), JSON.stringify(other));
    expect(() =>
      mergeLoads([
        { file: parts[0], report: reports[0] },
        { file: join(dir, 'other.json'), report: other },
      ]),
    ).toThrow(new UsageError(`${join(dir, 'other.json')}: its steps began at other instants (--start-at) than those of ${parts[0]}: merge the reports of processes given the same --start-at`));
  });

  it.each([
    [['--start-at', '4102444800000'], /--start-at needs --duration/],
    [['--duration', '1s', '--start-at', '2026-11-29T13:00:00'], /--start-at takes an instant with its zone \(2026-11-29T13:00:00Z\) or Unix milliseconds, got '2026-11-29T13:00:00'/],
    [['--duration', '1s', '--start-at', 'soon'], /got 'soon'/],
    [['--duration', '1s', '--start-at', '2020-01-01T00:00:00Z'], /--start-at 2020-01-01T00:00:00Z is \d+ s in the past: give an instant still to come/],
    [['--duration', '1s', '--start-at', '4102444800000'], /--start-at is \d+ s ahead, past the run's --deadline \(600000 ms\): raise --deadline past the whole sweep/],
  ])('%j: exit 2 before any request, saying why', async (args, message) => {
    const before = mock.journal.list().length;
    const r = await cli(['load', '--base-url', server.url, '--api-key', KEY, ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(mock.journal.list().length).toBe(before);
  });
});
