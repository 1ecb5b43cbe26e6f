// A server that answers under the body cap with what a client chokes on (a huge valid answer on every
// chat, a field nested a million deep, an object of hundreds of thousands of keys) gets a report, not
// a crash: the kit runs as a user runs it, in a child process whose V8 heap is capped far below what
// keeping every body, its text and its parse for the run took (the build before issue 28 dies here
// without a report). Scaled down from the bench (bench/hostile-kit.ts), which runs them at 8 MB.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hostileServer, type HostileKind, type HostileOptions } from '../../bench/hostile-servers.js';
import { BOUNDS } from '../../engine/bounded.js';
import { JSON_LIMITS } from '../../engine/json.js';
import type { RunReport } from '../../report/report.js';
import { BIN } from '../support/cli.js';
import { within } from '../support/machine.js';

const KEY = 'sk-hostile-0123456789abcd';
const HEAP_MB = 96;
/** The answer reader on both ways, and the quotes of whole answers; no fuzz pass. */
const SUITES = ['--suite', 'chat', '--suite', 'stop', '--no-fuzz'];
const dir = mkdtempSync(join(tmpdir(), 'conformance-bounded-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One run of SUITES against the hostile server, with the heap capped: its exit code and its JSON report. */
async function run(kind: HostileKind, opts: HostileOptions): Promise<{ code: number | null; signal: string | null; report?: RunReport; stderr: string }> {
  const server = await hostileServer(kind, opts);
  const file = join(dir, `${kind}.json`);
  try {
    // The hostile servers never answer whole.
    const args = [`--max-old-space-size=${HEAP_MB}`, BIN, 'run', '--base-url', server.url, '--api-key', KEY, ...SUITES, '--timeout', '20000', '--reporter', `json=${file}`];
    const { code, signal, stderr } = await new Promise<{ code: number | null; signal: string | null; stderr: string }>((resolve) =>
      execFile(process.execPath, args, { env: { ...process.env, NO_COLOR: '1' }, timeout: 90_000 }, (err, _stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, signal: (err as { signal?: string } | null)?.signal ?? null, stderr }),
      ),
    );
    let report: RunReport | undefined;
    try {
      report = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      // No report: the assertions say so.
    }
    return { code, signal, report, stderr };
  } finally {
    await server.close();
  }
}

/** Every text of the report within the engine's bounds (and the mark of a cut). */
function expectBounded(report: RunReport): void {
  const mark = 40;
  for (const r of report.results) {
    expect((r.message ?? '').length).toBeLessThanOrEqual(BOUNDS.checkMessage + mark);
    for (const p of r.paths ?? []) {
      expect((p.message ?? '').length).toBeLessThanOrEqual(BOUNDS.message + mark);
      expect(p.label.length).toBeLessThanOrEqual(BOUNDS.label + mark);
    }
    for (const e of [...r.evidence, ...(r.paths ?? []).flatMap((p) => p.evidence)]) expect((e.excerpt ?? '').length).toBeLessThanOrEqual(BOUNDS.excerpt + mark);
  }
}

const byId = (report: RunReport, id: string) => report.results.find((r) => r.id === id)!;

describe.concurrent(`the kit with a ${HEAP_MB} MB heap against answers under the cap`, () => {
  it(
    'reports on a valid answer of a million characters to every chat, each quote of it bounded',
    async () => {
      const { code, signal, report, stderr } = await run('big-content', { contentChars: 1_000_000 });
      expect(report, `no report (exit ${code}, ${signal}): ${stderr.slice(-500)}`).toBeDefined();
      expect(code).toBe(1);
      expectBounded(report!);
      // The server ignores stop: the stopped answer runs on past the sequence, quoted by its start.
      expect(byId(report!, 'stop.ends-generation').outcome).toBe('fail');
      expect(byId(report!, 'stop.ends-generation').paths!.find((p) => p.outcome === 'fail')!.message).toMatch(/…" \(1000000 characters\)/);
    },
    within(100_000),
  );

  it(
    'reports a field nested 600,000 deep as a finding about the server, without parsing it',
    async () => {
      const { code, report, stderr } = await run('deep', { depth: 600_000 });
      expect(report, `no report (exit ${code}): ${stderr.slice(-500)}`).toBeDefined();
      expect(code).toBe(1);
      expectBounded(report!);
      expect(byId(report!, 'chat.role.user').outcome).toBe('fail');
      expect(byId(report!, 'chat.role.user').message).toContain(`JSON nested deeper than ${JSON_LIMITS.depth} levels`);
    },
    within(100_000),
  );

  it(
    'reports an object of 200,000 keys as a finding about the server, without parsing it',
    async () => {
      const { code, report, stderr } = await run('many-keys', { keys: 200_000 });
      expect(report, `no report (exit ${code}): ${stderr.slice(-500)}`).toBeDefined();
      expect(code).toBe(1);
      expectBounded(report!);
      expect(byId(report!, 'chat.role.user').message).toContain(`JSON with more than ${JSON_LIMITS.keys} keys`);
    },
    within(100_000),
  );
});
