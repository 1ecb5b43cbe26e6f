// The command line's manners, as a new user meets them: a run that writes only files says where they
// went, a first run against the embedded mock says what to do next, the help names what an option
// takes, a slip of the keyboard is answered with what was meant, a port in use with the way out, and
// the reports say the same thing the same way; --version is the kit's, wherever it runs.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS, GLOBAL_OPTIONS } from '../../bin/options.js';
import { usageMessage } from '../../bin/usage.js';
import { nearest } from '../../schemas/nearest.js';
import { REPORTER_NAMES } from '../../report/index.js';
import { SUITES } from '../../suites/index.js';
import { BIN, cli } from '../support/cli.js';
import { within } from '../support/machine.js';

const NEXT = 'conformance: the embedded mock passed; to test your server: conformance run --base-url URL --api-key KEY';
const lines = (text: string) => text.trim().split('\n');
/** The options a command's --help lists. */
const helpOptions = (help: string) => [...help.matchAll(/^ {2}--([a-z][a-z0-9-]*)/gm)].map((m) => m[1]);

describe('the closing lines of a run', () => {
  it('with only file reporters, one line says the verdict and where each report went; after the embedded mock passed, one says what next', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'manners-'));
    const json = join(dir, 'r.json');
    const junit = join(dir, 'out', 'r.xml');
    const r = await cli(['run', '--suite', 'models', '--reporter', `json=${json}`, '--reporter', `junit=${junit}`]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toEqual([`conformance: PASSED (exit code 0); json report in ${json}, junit report in ${junit}`, NEXT]);
    expect(JSON.parse(readFileSync(json, 'utf8')).exitCode).toBe(0);
  });

  it('the pretty and HTML reports show a skipped check alike, and the fuzz notes say what a property applied to', async () => {
    const html = join(mkdtempSync(join(tmpdir(), 'manners-')), 'r.html');
    const r = await cli(['run', '--suite', 'errors', '--suite', 'fuzz', '--reporter', 'pretty', '--reporter', `html=${html}`]);
    expect(r.code).toBe(0);
    // A reporter wrote to standard output: only the next step is said.
    expect(lines(r.stderr)).toEqual([NEXT]);
    const page = readFileSync(html, 'utf8');
    const skipped = /skipped: (none of the \d+ chat answers of this run was filtered)/.exec(r.stdout);
    expect(skipped).not.toBeNull();
    expect(page).toContain(`<p>skipped: ${skipped![1]}</p>`);
    const counts = /^ {2}must: (.*)$/m.exec(r.stdout)![1];
    expect(counts).toMatch(/, 1 skipped$/);
    expect(page).toContain(`must: ${counts} · `);
    // "applied to 1 of 16 answers ...; held on all", never "held on 1 of 16".
    expect(r.stdout).toMatch(/note: \[seed 1\] applied to 1 of 16 answers to generated requests; held on all\n/);
    expect(r.stdout).toMatch(/note: \[seed 1\] applied to all 16 answers to generated requests; held on all\n/);
    expect(r.stdout).not.toMatch(/held on \d/);
  });
});

describe('the help', () => {
  it('--reporter names every reporter, html too; --suite lists the suites of the registry', async () => {
    const help = (await cli(['run', '--help'])).stdout;
    const reporter = help.slice(help.indexOf('--reporter'), help.indexOf('--output'));
    for (const name of REPORTER_NAMES) expect(reporter).toContain(name);
    expect(reporter).toContain('html');
    const choices = help.slice(help.indexOf('--suite'), help.indexOf('--check'));
    for (const suite of Object.keys(SUITES)) expect(choices).toContain(`"${suite}"`);
  });

  it(
    'every option of every command has a description, and --help lists exactly the commands and options of bin/options.ts',
    async () => {
      const [top, ...helps] = await Promise.all([cli(['--help']), ...Object.keys(COMMANDS).map((name) => cli([name, '--help']))]);
      expect(
        [...top.stdout.matchAll(/^ {2}conformance ([a-z]+)/gm)].map((m) => m[1]),
        'conformance --help: declare each command in bin/options.ts',
      ).toEqual(Object.keys(COMMANDS));
      Object.entries(COMMANDS).forEach(([name, spec], i) => {
        for (const [option, o] of Object.entries(spec.options)) expect(o.describe, `${name} --${option}`).toMatch(/\w/);
        // An option declared in conformance.ts itself would be missing from the generated reference.
        expect(helpOptions(helps[i].stdout).sort(), `conformance ${name} --help: declare its options in bin/options.ts`).toEqual([...Object.keys(spec.options), ...GLOBAL_OPTIONS].sort());
      });
    },
    within(60_000),
  );
});

describe('a slip of the keyboard', () => {
  it('an unknown command or option names the nearest one, in one line, exit 2', async () => {
    const command = await cli(['rn']);
    expect(command.code).toBe(2);
    expect(command.stderr).toBe('conformance: unknown command "rn": did you mean run?\n');
    const option = await cli(['run', '--bas-url', 'http://127.0.0.1:9']);
    expect(option.code).toBe(2);
    expect(option.stderr).toBe('conformance: unknown option --bas-url: did you mean --base-url?\n');
  });

  it('says what was meant, per command, for options, switches turned off and choices', () => {
    expect(usageMessage('Unknown argument: prt', ['mock', '--prt', '3'])).toBe('unknown option --prt: did you mean --port?');
    expect(usageMessage('Unknown argument: fuz', ['run', '--no-fuz'])).toBe('unknown option --no-fuz: did you mean --no-fuzz?');
    expect(usageMessage('Unknown arguments: sed, bas-url, basUrl', ['fuzz', '--sed', '1', '--bas-url=x'])).toBe(
      'unknown option --sed: did you mean --seed?; unknown option --bas-url: did you mean --base-url?',
    );
    expect(usageMessage('Unknown argument: zzzzzz', ['zzzzzz'])).toBe(`unknown command "zzzzzz": the commands are ${Object.keys(COMMANDS).join(', ')}`);
    expect(usageMessage('Unknown argument: extra', ['run', 'extra'])).toBe('unexpected argument "extra" (see conformance run --help)');
    expect(usageMessage('Unknown argument: qqqqqqqq', ['list', '--qqqqqqqq'])).toBe('unknown option --qqqqqqqq (see conformance list --help)');
    expect(usageMessage('Invalid values:\n  Argument: suite, Given: "chta", Choices: "chat", "stop"', ['run', '--suite', 'chta'])).toBe('--suite "chta" is not one of chat, stop: did you mean chat?');
    expect(usageMessage('Not enough non-option arguments: got 1, need at least 2', ['diff', 'a.json'])).toBe('missing arguments: conformance diff <old> <new>');
    expect(nearest('mock', ['run', 'fuzz'])).toBeUndefined();
  });

  it(
    'a fault, a check id, a content profile or a base URL mistyped names what was meant; a number flag says what was given',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'manners-'));
      const baseline = join(dir, 'expected.yaml');
      writeFileSync(baseline, 'expected:\n  - check: chat.objekt\n    reason: not yet\n');
      const [fault, header, listed, check, url, host, timeout, seed, reporter] = await Promise.all([
        cli(['mock', '--fault', 'drop-afterr', '--port', '0']),
        cli(['mock', '--content', 'markdwn', '--port', '0']),
        cli(['run', '--expected-failures', baseline]),
        cli(['run', '--check', 'chat.objekt']),
        // No key given: what is wrong with the URL is said first, as a key would be sent there.
        cli(['run', '--base-url', '127.0.0.1:19001'], { CONFORMANCE_API_KEY: undefined }),
        cli(['run', '--base-url', 'api.example.com', '--api-key', 'k']),
        cli(['run', '--timeout', 'abc']),
        cli(['fuzz', '--seed=xyz']),
        cli(['run', '--reporter', `htm=${join(dir, 'x.html')}`]),
      ]);
      expect([fault, header, listed, check, url, host, timeout, seed, reporter].map((r) => r.code)).toEqual([2, 2, 2, 2, 2, 2, 2, 2, 2]);
      expect(fault.stderr).toBe('conformance: no fault named "drop-afterr": did you mean drop-after?; see conformance mock --list-faults\n');
      expect(header.stderr).toMatch(/^conformance: --content: unknown content profile "markdwn": did you mean markdown\? /);
      expect(listed.stderr).toBe(
        `conformance: ${baseline}:2: expected[0].check: expected the id of a check (conformance list) or of a client flow; "chat.objekt" is none: did you mean chat.object?\n`,
      );
      expect(check.stderr).toBe('conformance: no check matches the filters (suites: all; checks: chat.objekt): did you mean chat.object?; see conformance list\n');
      expect(url.stderr).toBe('conformance: --base-url is not an http(s) URL: 127.0.0.1:19001: did you mean http://127.0.0.1:19001? (a URL names its scheme)\n');
      expect(host.stderr).toMatch(/did you mean https:\/\/api\.example\.com\? /);
      expect(timeout.stderr).toBe("conformance: --timeout takes a positive whole number of milliseconds, got 'abc'\n");
      expect(reporter.stderr).toBe(`conformance: --reporter "htm" is not one of ${REPORTER_NAMES.join(', ')}: did you mean html?\n`);
      expect(seed.stderr).toBe(`conformance: --seed takes a whole number from 0 to ${2 ** 32 - 1}, got 'xyz'\n`);
    },
    within(60_000),
  );
});

it('a number option in milliseconds says so when its value is no number, and turns a duration typed into the figure meant', async () => {
  // Every option its description gives in ms, wherever a command takes it.
  const ms = [
    ...new Set(
      Object.values(COMMANDS).flatMap((c) =>
        Object.entries(c.options)
          .filter(([, o]) => o.type === 'number' && /\bin ms\b/.test(o.describe ?? ''))
          .map(([name]) => name),
      ),
    ),
  ];
  expect(ms.sort()).toEqual(['deadline', 'idle-timeout', 'timeout']);
  const said = await Promise.all(ms.map((name) => cli(['run', `--${name}`, 'soon'])));
  expect(said.map((r) => r.stderr)).toEqual(ms.map((name) => `conformance: --${name} takes a positive whole number of milliseconds, got 'soon'\n`));
  const [seconds, minutes] = await Promise.all([cli(['run', '--timeout', '30s']), cli(['load', '--deadline=2m'])]);
  expect(seconds.stderr).toBe("conformance: --timeout takes a positive whole number of milliseconds, got '30s': did you mean --timeout 30000?\n");
  expect(minutes.stderr).toBe("conformance: --deadline takes a positive whole number of milliseconds, got '2m': did you mean --deadline 120000?\n");
  expect([...said, seconds, minutes].map((r) => r.code)).toEqual([2, 2, 2, 2, 2]);
});

// Node's recursive mkdir loops at full CPU where the kernel will never make a folder (under /proc):
// a report's or the recordings' folder there hung the command. Now it is one line, exit 2; a loop
// would reach the command's own limit, and its code would be null.
it.skipIf(!existsSync('/proc/self'))('a folder the system will never make, for a report or the recordings: one line naming it, exit 2', async () => {
  const [report, recordings] = await Promise.all([
    cli(['run', '--suite', 'models', '--reporter', 'json=/proc/conformance-none/r.json']),
    cli(['mock', '--port', '0', '--record', '/proc/conformance-none/rec', '--upstream', 'http://127.0.0.1:9']),
  ]);
  expect([report.code, report.stderr]).toEqual([2, "conformance: --reporter json: cannot write /proc/conformance-none/r.json: ENOENT: no such file or directory, mkdir '/proc/conformance-none'\n"]);
  expect([recordings.code, recordings.stderr]).toEqual([
    2,
    "conformance: the recordings' folder /proc/conformance-none/rec cannot be made: ENOENT: no such file or directory, mkdir '/proc/conformance-none'\n",
  ]);
});

it('a port in use: one line that suggests --port 0, exit 2, no stack', async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  try {
    const port = (taken.address() as { port: number }).port;
    const r = await cli(['mock', '--port', String(port)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`conformance: port ${port} is in use on 127.0.0.1: choose another with --port N, or --port 0 for any free one\n`);
  } finally {
    await new Promise((resolve) => taken.close(resolve));
  }
});

it("--version says the kit's own version from any folder: inside another project, and outside any", async () => {
  const own = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;
  const project = mkdtempSync(join(tmpdir(), 'conformance-project-'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-app', version: '9.9.9' }));
  const outside = mkdtempSync(join(tmpdir(), 'conformance-nowhere-'));
  for (const cwd of [project, outside]) {
    const r = await new Promise<{ code: number | null; stdout: string }>((resolve) =>
      execFile(process.execPath, [BIN, '--version'], { cwd, timeout: within(60_000) }, (err, stdout) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout })),
    );
    expect([r.code, r.stdout.trim()], cwd).toEqual([0, own]);
  }
});
