// What the kit promises of every report holds for every command, because every report passes one
// boundary (report/boundary.ts): each command (run, fuzz, load, load --merge, diff), with every
// reporter, against servers that put the key in what they send back, send ids of a megabyte, or
// declare sizes no request should be built to: each ends, cut short by nothing but its deadline,
// writes every report, and no report holds the key or a piece of it, or a text past its bound. How
// long each takes is bench/hostile-kit.ts's to measure.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileServer, hugeCatalog, type HostileServer } from '../bench/hostile-servers.js';
import { BOUNDS } from '../engine/bounded.js';
import { Redactor } from '../engine/redact.js';
import { seal } from '../report/boundary.js';
import { REPORTER_NAMES } from '../report/index.js';
import type { RawReport } from '../report/report.js';
import { cli } from './support/cli.js';
import { piecesShown } from './support/secrets.js';
import { within } from './support/machine.js';

/** Of characters no report of the kit writes by itself, so any four of them in a row come from it. */
const KEY = 'sk-7QZ3VX9KJ2MNP4GHWU8BYF';
/** Short enough that a busy machine cuts a run by it: what is held is that the run or the deadline
 * ends it, either way. */
const DEADLINE_MS = 15_000;
/** How long past its deadline a command is waited for (its reports are made then) before it counts
 * as hung: a guard, not a speed; the machine's slowdown scales it. */
const GRACE_MS = 25_000;
/** The mock in this process answers as fast as a busy machine lets it: a request's timeout scales. */
const LIMITS = ['--timeout', String(within(3000)), '--deadline', String(DEADLINE_MS)];
const COMMANDS: Record<string, string[]> = {
  run: ['run', '--fuzz-runs', '8'],
  fuzz: ['fuzz', '--seed', '5', '--runs', '12'],
  load: ['load', '--concurrency', '1,4', '--requests', '12'],
};
const FILE_REPORTERS = REPORTER_NAMES.filter((r) => r !== 'pretty');

const dir = mkdtempSync(join(tmpdir(), 'conformance-boundary-'));
const servers: Record<string, { url: string; close(): Promise<void> }> = {};

beforeAll(async () => {
  const started: [string, Promise<HostileServer>][] = [
    ['key-in-values', hostileServer('key-in-values', { key: KEY })],
    // Far past most bounds (a label's 200 characters, a message's 2,000); a megabyte, as the bench
    // runs it (bench/hostile-kit.ts), costs a run half a minute of parsing on two cores.
    // The model it lists is short: one past MODEL_ID_MAX is left out of what the kit sends (the
    // test of that is test/suites/long-model-id.test.ts); the model each answer names is not.
    ['huge-ids', hostileServer('huge-ids', { idChars: 64 * 1024, modelChars: 8, echoChars: 64 * 1024 })],
    ['huge-catalog', hugeCatalog(KEY)],
  ];
  for (const [name, p] of started) servers[name] = await p;
});
afterAll(async () => {
  await Promise.all(Object.values(servers).map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

type Ran = Awaited<ReturnType<typeof cli>>;

/** A command with no key in its environment: only the one its flags give. */
const conformance = (args: string[], timeoutMs = DEADLINE_MS + within(GRACE_MS)) => cli(args, { CONFORMANCE_API_KEY: '' }, timeoutMs);

/** Every reporter: pretty on standard output, the others in files named for the run. */
const reporters = (name: string) => ['--reporter', 'pretty', ...FILE_REPORTERS.flatMap((r) => ['--reporter', `${r}=${join(dir, `${name}.${r}`)}`])];
const reportText = (name: string, reporter: string) => readFileSync(join(dir, `${name}.${reporter}`), 'utf8');

/** Every report of a run as it holds: each file written, no piece of the key anywhere, and every text
 * of the JSON report within its bound (sealing it again changes nothing). */
function expectSealed(name: string, ran: Ran): RawReport {
  expect([0, 1], `${name}: exit ${ran.code}: ${ran.stderr.slice(-800)}`).toContain(ran.code);
  const texts = [ran.stdout, ran.stderr, ...FILE_REPORTERS.map((r) => reportText(name, r))];
  for (const text of texts) expect(piecesShown(text, KEY)).toEqual([]);
  const report = JSON.parse(reportText(name, 'json')) as RawReport;
  expect(seal(report, new Redactor())).toEqual(report);
  // A curl keeps 80,000 characters of a request (BOUNDS.curl): a report of a hundred failures whose
  // requests carry a 64 KB model id is some megabytes, where it would be the sum of the requests.
  for (const text of texts) expect(text.length, name).toBeLessThan(16 * 1024 * 1024);
  return report;
}

describe.concurrent.each(['key-in-values', 'huge-ids', 'huge-catalog'])('against a server with %s', (server) => {
  it.each(Object.keys(COMMANDS))(
    '%s ends, cut short by nothing but its deadline, every report sealed',
    async (command) => {
      const name = `${server}-${command}`;
      const ran = await conformance([...COMMANDS[command], '--base-url', servers[server].url, '--api-key', KEY, ...LIMITS, ...reporters(name)]);
      const report = expectSealed(name, ran);
      expect(report.results.length).toBeGreaterThan(0);
      // It ended by itself or its deadline ended it, which the report then says: nothing else stops it.
      expect([undefined, `the run's deadline passed (--deadline ${DEADLINE_MS} ms)`]).toContain(report.stopped);
    },
    within(120_000),
  );
});

describe('reports read from files', () => {
  it(
    'load --merge and diff seal what they read, with every reporter',
    async () => {
      // The reports the commands above wrote, made again here so that this test stands alone.
      const made = await Promise.all(
        ['key-in-values', 'huge-ids'].map(async (server) => {
          const name = `read-${server}`;
          const load = await conformance([...COMMANDS.load, '--base-url', servers[server].url, '--api-key', KEY, ...LIMITS, '--reporter', `json=${join(dir, `${name}.json`)}`]);
          expect([0, 1], load.stderr).toContain(load.code);
          return join(dir, `${name}.json`);
        }),
      );
      const merged = await conformance(['load', '--merge', made[0], '--merge', made[1], '--api-key', KEY, ...reporters('merged')]);
      expect(expectSealed('merged', merged).load?.merged).toBe(2);

      const diff = await conformance(['diff', made[0], made[1]], 60_000);
      expect([0, 1]).toContain(diff.code);
      expect(piecesShown(diff.stdout + diff.stderr, KEY)).toEqual([]);
      for (const line of diff.stdout.split('\n')) expect(line.length).toBeLessThan(BOUNDS.checkMessage + 200);
    },
    within(120_000),
  );
});

describe('credentials in a URL', () => {
  it.each(Object.keys(COMMANDS))(
    '%s refuses them with a usage error that shows none of them',
    async (command) => {
      const ran = await conformance([...COMMANDS[command], '--base-url', `http://user:${KEY}@127.0.0.1:9`, '--api-key', 'sk-another-key-0000', ...reporters(`url-${command}`)], 30_000);
      expect(ran.code).toBe(2);
      // One line says what is wrong (fuzz says its seed first).
      const said = ran.stderr
        .trim()
        .split('\n')
        .filter((l) => !l.includes('fuzz seed'));
      expect(said).toHaveLength(1);
      expect(said[0]).toContain('--api-key');
      expect(piecesShown(ran.stdout + ran.stderr, KEY)).toEqual([]);
    },
    within(40_000),
  );
});
