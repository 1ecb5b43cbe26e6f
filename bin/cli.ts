// Flags in, exit code out. 0: every must passed; 1: a check failed; 2: usage error or unreachable.
import { accessSync, appendFileSync, constants, existsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { render, REPORTER_NAMES, type ReporterName } from '../report/index.js';
import { REPORT_FORMAT_VERSION, type RawReport, type RunReport } from '../report/report.js';
import { seal, sealText } from '../report/boundary.js';
import { diffReports, renderDiff } from '../report/diff.js';
import { BADGE_COLOURS, badgeOf, renderBadge } from '../report/badge.js';
import { liveLine, loadLine } from '../report/progress.js';
import { validatorErrors } from '../schemas/index.js';
import { FILE_LIMITS, readText, shownPath } from '../schemas/file.js';
import { makeFolder } from '../engine/folders.js';
import { parseJson } from '../engine/json.js';
import { usePrecompiled } from '../schemas/precompiled.js';
import { redactorFor, sectionsOf } from '../engine/runner.js';
import { CHECKS, SUITES, withFuzz } from '../suites/index.js';
import { DEFAULT_DEADLINE_MS, runSession, UsageError, type SessionOptions } from '../suites/session.js';
import { FUZZ_DEFAULTS, FUZZ_PASS } from '../suites/fuzz/index.js';
import { randomInt } from 'node:crypto';
import type { ArgumentsCamelCase, InferredOptionTypes, Options } from 'yargs';
import { baseUrlWarning } from '../engine/target.js';
import { banner, boundaryLines } from '../mock/banner.js';
import { boundaryOf, hostProblem, originProblem, type Boundary } from '../mock/boundary.js';
import { startMockServer } from '../mock/http.js';
import { serverTls } from '../mock/tls.js';
import { createMock } from '../mock/core/handle.js';
import { withPace } from '../mock/core/timing.js';
import { loadConfigFile } from '../mock/config/load.js';
import { FAULTS } from '../mock/core/faults/index.js';
import { parseContent } from '../mock/core/content/choice.js';
import { DEFAULT_CONFIG } from '../mock/config/default.js';
import { startRecorder } from '../mock/record/server.js';
import { COVERAGE, coverageFigure, isMapped, isUntestable } from '../suites/coverage.js';
import { mergeLoads, readSlos, runLoad } from '../suites/load/session.js';
import { COMMANDS, UNITS, type CHECKED, type TARGET } from './options.js';
import { inMilliseconds, notOneOf, typedValue, usageMessage } from './usage.js';
import { catalogueSentence, ownsOf, proofSentence, provenBy } from './proof.js';
import { closingLines } from './closing.js';
import { checksForFlows, clientsBeside, FLOW_IDS, notInstalledChoice } from '../clients/session.js';
import { clientProcess } from '../clients/isolated.js';
import { watchNpmParent } from './npm-parent.js';
import pkg from '../package.json' with { type: 'json' };

const EXIT_USAGE = 2;

// `conformance list | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});

function usageExit(message: string): never {
  process.stderr.write(`conformance: ${message}\n`);
  process.exit(EXIT_USAGE);
}

/** A port the mock cannot take, in one line that says what to do. */
function cannotListen(e: NodeJS.ErrnoException, host: string, port: number): never {
  const instead = 'choose another with --port N, or --port 0 for any free one';
  if (e.code === 'EADDRINUSE') usageExit(`port ${port} is in use on ${host}: ${instead}`);
  if (e.code === 'EACCES') usageExit(`port ${port} on ${host} needs privileges: ${instead}`);
  usageExit(`cannot listen on ${host}:${port}: ${e.message}`);
}

interface ReporterTarget {
  name: ReporterName;
  file?: string;
  /** Appended to, not replaced: GitHub's job summary, which other steps write to too. */
  append?: boolean;
}

/** `--reporter pretty --reporter junit=out.xml --reporter json --output report.json` */
function reporterTargets(specs: string[], output?: string): ReporterTarget[] {
  const targets = specs.map((spec): ReporterTarget => {
    const [name, file] = spec.split(/=(.*)/s);
    if (!REPORTER_NAMES.includes(name as ReporterName)) usageExit(notOneOf('reporter', name, REPORTER_NAMES));
    if (spec.includes('=') && !file) usageExit(`--reporter ${name}= names no file: give one (${name}=FILE), or leave out the = for standard output`);
    return { name: name as ReporterName, file: file || undefined };
  });
  if (output) {
    const open = targets.find((t) => !t.file && t.name !== 'pretty') ?? (targets.length === 1 ? targets[0] : undefined);
    if (!open) usageExit('--output names a file, but every reporter already has one: use --reporter NAME=FILE');
    open.file = output;
  }
  const summary = process.env.GITHUB_STEP_SUMMARY;
  for (const t of targets) if (t.name === 'markdown' && !t.file && summary) Object.assign(t, { file: summary, append: true });
  if (targets.filter((t) => !t.file).length > 1) usageExit('only one reporter can write to standard output; give the others a file with NAME=FILE or --output');
  for (const t of targets) if (t.file) writable(t.file, `--reporter ${t.name}`);
  return targets;
}

/** A report file that could not be written would be found after every request was sent: its
 * folder is made (or found writable) before the first one. */
function writable(file: string, what: string): void {
  const dir = dirname(resolve(file));
  try {
    makeFolder(dir);
    accessSync(dir, constants.W_OK);
    if (existsSync(file)) {
      if (statSync(file).isDirectory()) throw new Error('it is a directory');
      accessSync(file, constants.W_OK);
    }
  } catch (e) {
    usageExit(`${what}: cannot write ${file}: ${(e as Error).message}`);
  }
}

/** A JSON report of this format version, or exit 2 naming the file and what is wrong with it: read
 * within FILE_LIMITS (its size, its nesting, its count of objects and keys), so that a file of any
 * shape is a usage error and never the stack or the heap of the process. Its texts are as the file
 * has them: a report made from it is sealed again. */
function readReport(file: string): RawReport {
  let text: string;
  try {
    text = readText(file, 'JSON report', FILE_LIMITS.reportBytes);
  } catch (e) {
    usageExit((e as Error).message);
  }
  const parsed = parseJson(text, { depth: FILE_LIMITS.depth, keys: FILE_LIMITS.reportKeys, containers: FILE_LIMITS.reportContainers });
  if (!parsed.ok) usageExit(`${file}: cannot read a JSON report: ${parsed.error}`);
  const value = parsed.value;
  const version = (value as { formatVersion?: unknown })?.formatVersion;
  if (version !== REPORT_FORMAT_VERSION) usageExit(`${file}: formatVersion ${JSON.stringify(version)}; this conformance reads ${REPORT_FORMAT_VERSION}: run both with the same version`);
  const problems = validatorErrors('report', value, 3);
  if (problems.length) usageExit(`${file}: not a report of format ${REPORT_FORMAT_VERSION}: ${problems.map((p) => `${shownPath(p.path)}: ${p.message}`).join('; ')}`);
  return value as RawReport;
}

/** What a report read from a file is redacted of: the keys of this shell, where it holds them. */
const keysOfTheShell = () => redactorFor({ apiKey: process.env.CONFORMANCE_API_KEY, secondApiKey: process.env.CONFORMANCE_SECOND_API_KEY, headers: {} });

/** Ctrl-C (or SIGTERM) stops the run: what finished is reported, the rest not-tested, and the exit
 * code says which signal (130, 143). A second one quits at once. */
function interruption(): { signal: AbortSignal; exitCode(): number | undefined } {
  const controller = new AbortController();
  let code: number | undefined;
  const on = (signal: NodeJS.Signals) => {
    const exit = signal === 'SIGINT' ? 130 : 143;
    if (code !== undefined) process.exit(exit);
    code = exit;
    process.stderr.write(`conformance: ${signal}: writing the report of what finished (again to quit at once)\n`);
    controller.abort(`interrupted (${signal})`);
  };
  process.on('SIGINT', on);
  process.on('SIGTERM', on);
  return { signal: controller.signal, exitCode: () => code };
}

function parseHeaders(values: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values) {
    const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(.*)$/.exec(v);
    if (!m) usageExit(`--header must look like 'Name: value', got '${v}'`);
    out[m[1].toLowerCase()] = m[2];
  }
  return out;
}

/** A positive whole number, or exit 2 saying the flag's unit (`--timeout takes a positive whole
 * number of milliseconds`), and the figure meant where a duration was typed (`30s`: 30000). */
const positiveInt = (name: string) => (v: unknown) => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) {
    const unit = UNITS[name];
    const typed = typedValue(name, v, hideBin(process.argv));
    const meant = unit === 'milliseconds' ? inMilliseconds(typed) : undefined;
    usageExit(`--${name} takes a positive whole number${unit ? ` of ${unit}` : ''}, got ${typed}${meant ? `: did you mean --${name} ${meant}?` : ''}`);
  }
  return n;
};

/** `1,4,16,64`: the steps of a sweep, each a positive number (a whole one for --concurrency). */
function listOf(name: string, whole: boolean) {
  return (v: unknown): number[] | undefined => {
    if (v === undefined) return undefined;
    const items = String(v)
      .split(',')
      .map((x) => x.trim());
    const numbers = items.map(Number);
    const bad = items.find((x, i) => !x || !Number.isFinite(numbers[i]) || numbers[i] <= 0 || (whole && !Number.isInteger(numbers[i])));
    if (bad !== undefined) usageExit(`--${name} takes a list of positive ${whole ? 'whole numbers' : 'numbers'} (${whole ? '1,4,16,64' : '2,5,10'}), got '${String(v)}'`);
    return numbers;
  };
}

/** `30s`, `500ms`, `2m`, or seconds, in ms: how long each step of a sweep lasts (--duration, more than
 * nothing), or the longest wait for a server getting ready (--wait, where 0 waits not at all). */
function durationOf(flag: 'duration' | 'wait', what: string) {
  return (v: unknown): number | undefined => {
    if (v === undefined) return undefined;
    const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/.exec(String(v));
    if (!m || (flag === 'duration' && Number(m[1]) <= 0)) usageExit(`--${flag} takes ${what} (30s, 500ms, 2m), got '${String(v)}'`);
    return Number(m[1]) * (m[2] === 'ms' ? 1 : m[2] === 'm' ? 60_000 : 1000);
  };
}

/** --start-at: an ISO 8601 time with its zone, or Unix milliseconds; one still to come. A time
 * without a zone would be read in each machine's own, and the processes would not begin together. */
function instantOf(v: unknown): number | undefined {
  if (v === undefined) return undefined;
  const text = String(v).trim();
  const at = /^\d+$/.test(text) ? Number(text) : /(Z|[+-]\d\d:?\d\d)$/i.test(text) ? Date.parse(text) : Number.NaN;
  if (!Number.isFinite(at)) usageExit(`--start-at takes an instant with its zone (2026-11-29T13:00:00Z) or Unix milliseconds, got '${text}'`);
  if (at <= Date.now()) usageExit(`--start-at ${text} is ${Math.ceil((Date.now() - at) / 1000)} s in the past: give an instant still to come, the same to every process of the sweep`);
  return at;
}

/** The parsed options of a command, as yargs gives them to its handler. */
type ArgsOf<O extends Record<string, Options>> = ArgumentsCamelCase<InferredOptionTypes<O>>;
/** The target and the reports, which `run`, `fuzz` and `load` share. */
type TargetArgs = ArgsOf<typeof TARGET>;
/** Those and how checks run: `run` and `fuzz`. */
type CheckArgs = ArgsOf<typeof CHECKED>;

/** When a fuzz session must have sent its last request for the run to end by --deadline: a second
 * before it is left for the verdicts and the reports. */
function deadlineAt(flag: unknown): number {
  const ms = positiveInt('deadline')(flag) ?? DEFAULT_DEADLINE_MS;
  return Date.now() + Math.max(ms - 1_000, ms / 2);
}

/** How Ctrl-C reaches a fuzz session (`stop`), and whether it stops the checks too (`run`) or only the
 * session, so that what it found is reported (`fuzz`). */
interface FuzzStop {
  stop: AbortController;
  checksToo: boolean;
}

/** One session of checks (`run`, `fuzz`) from flags to reports and exit code. */
async function runAndReport(
  command: 'run' | 'fuzz' | 'clients',
  argv: CheckArgs,
  choice: Pick<SessionOptions, 'registry' | 'suites' | 'checks' | 'strict' | 'requireComplete' | 'without' | 'beside'>,
  fuzz?: FuzzStop,
): Promise<void> {
  await reported(command, argv, async (common, signal) => {
    if (fuzz) signal.addEventListener('abort', () => fuzz.stop.abort(signal.reason), { once: true });
    const progress = liveLine(process.stderr);
    return runSession({
      ...common,
      ...choice,
      allModels: argv['all-models'],
      concurrency: positiveInt('concurrency')(argv.concurrency),
      signal: !fuzz || fuzz.checksToo ? signal : undefined,
      onStart: progress.onStart,
    }).finally(() => progress.stop());
  });
}

/** The options every session takes from the target flags. */
type CommonOptions = Pick<
  SessionOptions,
  | 'baseUrl'
  | 'apiKey'
  | 'secondApiKey'
  | 'siteUrl'
  | 'models'
  | 'headers'
  | 'tls'
  | 'timeoutMs'
  | 'idleTimeoutMs'
  | 'maxBodyBytes'
  | 'deadlineMs'
  | 'waitMs'
  | 'onWait'
  | 'expectedFailures'
  | 'updateBaseline'
  | 'flowIds'
>;

/** How long a command whose reports are written waits for what is still open to end by itself. */
const EXIT_GRACE_MS = 1_000;

/** A session (`run`, `fuzz`, `load`) from the target flags to its reports and its exit code. */
async function reported(command: string, argv: TargetArgs, session: (common: CommonOptions, signal: AbortSignal) => Promise<RunReport>): Promise<void> {
  // Everything that can be wrong with the run itself is found before the first request.
  const reporters = reporterTargets(argv.reporter as string[], argv.output);
  const headers = parseHeaders(argv.header as string[]);
  const color = argv.color ?? (!!process.stdout.isTTY && !process.env.NO_COLOR);
  const warning = argv['base-url'] ? baseUrlWarning(argv['base-url']) : undefined;
  if (warning) process.stderr.write(`conformance: warning: ${warning}\n`);
  const waitMs = durationOf('wait', 'the longest wait for a server getting ready, 0 for none')(argv.wait);
  const interrupted = interruption();
  const apiKey = argv['api-key'] ?? process.env.CONFORMANCE_API_KEY;
  const secondApiKey = argv['second-api-key'] ?? process.env.CONFORMANCE_SECOND_API_KEY;
  // What the server says while it gets ready reaches the terminal as every text of it does: redacted.
  const redactor = redactorFor({ apiKey, secondApiKey, headers });
  try {
    const report = await session(
      {
        baseUrl: argv['base-url'],
        apiKey,
        secondApiKey,
        siteUrl: argv['site-url'],
        models: argv.model,
        headers,
        tls: { caCert: argv['ca-cert'], insecure: argv.insecure, clientCert: argv['client-cert'], clientKey: argv['client-key'] },
        timeoutMs: positiveInt('timeout')(argv.timeout),
        idleTimeoutMs: positiveInt('idle-timeout')(argv['idle-timeout']),
        maxBodyBytes: positiveInt('max-body')(argv['max-body']),
        deadlineMs: positiveInt('deadline')(argv.deadline),
        waitMs,
        onWait: (line) => process.stderr.write(`conformance: ${sealText(line, redactor)}\n`),
        expectedFailures: argv['expected-failures'],
        updateBaseline: argv['update-baseline'],
        flowIds: FLOW_IDS,
      },
      interrupted.signal,
    );
    // The code the process exits with is the report's too: an interrupted run is 130 (143) in its JSON.
    const stopped = interrupted.exitCode();
    const final = stopped === undefined ? report : { ...report, exitCode: stopped };
    for (const r of reporters) {
      const text = render(r.name, final, { color: r.file ? false : color });
      if (r.append) appendFileSync(r.file!, text);
      else if (r.file) {
        makeFolder(dirname(r.file));
        writeFileSync(r.file, text);
      } else process.stdout.write(text);
    }
    process.exitCode = final.exitCode;
    for (const line of closingLines(command, reporters, final, process.exitCode)) process.stderr.write(`conformance: ${line}\n`);
    // The reports are written: the run is over, and so is the process, whatever a client library
    // left waiting (a timer, a socket it keeps): a moment for the rest to end by itself, then out.
    setTimeout(() => process.exit(), EXIT_GRACE_MS).unref();
  } catch (e) {
    // A usage error may quote what the server sent (a model id, the URL it could not reach).
    if (e instanceof UsageError) usageExit(sealText(e.message, redactor));
    throw e;
  }
}

// Every command validates with the validators the build compiled (schemas/precompiled.ts).
usePrecompiled();

// `npx conformance mock &` then `kill $!`: npm passes the signal to its shell, not to this process.
watchNpmParent(() => {
  process.stderr.write('conformance: the npm process that started this command has ended: stopping as on SIGTERM\n');
  process.kill(process.pid, 'SIGTERM');
});

// No top-level await: the build makes this a CommonJS file, which bin/conformance.ts loads with its
// code cache. An error a handler throws ends the process as an unhandled rejection does: exit 1, its stack.
void yargs(hideBin(process.argv))
  .scriptName('conformance')
  .usage('$0 <command> [options]')
  .command(
    COMMANDS.run.command,
    COMMANDS.run.describe,
    (y) => y.options(COMMANDS.run.options),
    async (argv) => {
      const runs = positiveInt('fuzz-runs')(argv['fuzz-runs']) ?? FUZZ_PASS.runs;
      // The pass stops sending when the run is stopped or its deadline nears, as the checks do.
      const stop = new AbortController();
      const settings = { ...FUZZ_PASS, runs, maxRequests: runs + FUZZ_PASS.maxRequests - FUZZ_PASS.runs, stop: stop.signal, deadlineAt: deadlineAt(argv.deadline) };
      const registry = withFuzz(
        settings,
        `fuzz pass: seed ${FUZZ_PASS.seed}, ${runs} generated requests (${runs === FUZZ_PASS.runs ? '--fuzz-runs widens it, --no-fuzz turns it off' : '--fuzz-runs'})`,
      );
      await runAndReport(
        'run',
        argv,
        {
          registry,
          suites: argv.suite,
          checks: argv.check,
          strict: argv.strict,
          requireComplete: argv['require-complete'],
          without: argv.fuzz ? [] : ['fuzz'],
          ...(argv.clients ? { beside: clientsBeside({ concurrency: positiveInt('concurrency')(argv.concurrency) }) } : {}),
        },
        { stop, checksToo: true },
      );
    },
  )
  // Not a user's command: one client's flows in a process of its own, for `clients` (clients/isolated.ts).
  .command('__client', false, {}, () => clientProcess())
  .command(
    COMMANDS.clients.command,
    COMMANDS.clients.describe,
    (y) => y.options(COMMANDS.clients.options),
    async (argv) => {
      // The checks the flows rest on run beside them: each failed flow is explained by this run's verdicts.
      const choice = { clients: argv.client, flows: argv.flow, concurrency: positiveInt('concurrency')(argv.concurrency), pageHost: argv['page-host'] };
      // A client asked for by name that cannot run would leave nothing run, and a run that passes.
      const missing = notInstalledChoice(choice);
      if (missing) usageExit(missing);
      await runAndReport('clients', argv, { checks: checksForFlows(choice), strict: argv.strict, requireComplete: argv['require-complete'], without: ['fuzz'], beside: clientsBeside(choice) });
    },
  )
  .command(
    COMMANDS.fuzz.command,
    COMMANDS.fuzz.describe,
    (y) => y.options(COMMANDS.fuzz.options),
    async (argv) => {
      const seed = argv.seed ?? randomInt(2 ** 31);
      if (!Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32) usageExit(`--seed takes a whole number from 0 to ${2 ** 32 - 1}, got ${typedValue('seed', argv.seed, hideBin(process.argv))}`);
      const runs = positiveInt('runs')(argv.runs)!;
      // Shrinking comes on top of the generated requests, whatever --runs is.
      const maxRequests = positiveInt('max-requests')(argv['max-requests']) ?? runs + FUZZ_DEFAULTS.maxRequests - FUZZ_DEFAULTS.runs;
      process.stderr.write(`conformance: fuzz seed ${seed} (--seed ${seed} sends these requests again)\n`);
      // Ctrl-C ends the session, not the checks: what was found so far is judged and reported.
      const stop = new AbortController();
      const settings = { seed, runs, maxRequests, shrinkRequests: FUZZ_DEFAULTS.shrinkRequests, stop: stop.signal, deadlineAt: deadlineAt(argv.deadline) };
      await runAndReport('fuzz', argv, { registry: withFuzz(settings), suites: ['fuzz'], checks: argv.check, strict: true, requireComplete: false }, { stop, checksToo: false });
    },
  )
  .command(
    COMMANDS.load.command,
    COMMANDS.load.describe,
    (y) => y.options(COMMANDS.load.options),
    async (argv) => {
      if (argv.merge?.length) {
        let merged: RunReport;
        try {
          merged = mergeLoads(
            argv.merge.map((file) => ({ file, report: readReport(file) })),
            argv.slo as string[],
            redactorFor({ apiKey: argv['api-key'] ?? process.env.CONFORMANCE_API_KEY, secondApiKey: argv['second-api-key'] ?? process.env.CONFORMANCE_SECOND_API_KEY, headers: {} }),
          );
        } catch (e) {
          usageExit((e as Error).message);
        }
        await reported('load', argv, async () => merged);
        return;
      }
      const concurrency = listOf('concurrency', true)(argv.concurrency);
      const rate = listOf('rate', false)(argv.rate);
      if (concurrency && rate) usageExit('--concurrency and --rate are two kinds of sweep: give one');
      const steps = {
        concurrency,
        rate,
        durationMs: durationOf('duration', 'a time per step')(argv.duration),
        startAt: instantOf(argv['start-at']),
        requests: positiveInt('requests')(argv.requests),
        maxTokens: positiveInt('max-tokens')(argv['max-tokens']),
        seed: argv.seed,
        strict: argv.strict,
        requireComplete: argv['require-complete'],
      };
      // A malformed objective is found before the first request.
      try {
        readSlos(argv.slo as string[]);
      } catch (e) {
        usageExit((e as Error).message);
      }
      await reported('load', argv, (common, signal) => {
        const progress = loadLine(process.stderr);
        return runLoad({
          ...common,
          ...steps,
          slo: argv.slo as string[],
          signal,
          onProgress: progress.onStep,
          onStep: (s) => {
            progress.stop();
            process.stderr.write(
              `conformance: ${s.label}: ${s.requests} requests, ${s.requestsPerSecond} req/s${s.failed + s.timedOut ? `, ${s.failed + s.timedOut} failed` : ''}${s.refused ? `, ${s.refused} refused` : ''}\n`,
            );
          },
        }).finally(() => progress.stop());
      });
    },
  )
  .command(
    COMMANDS.diff.command,
    COMMANDS.diff.describe,
    (y) => y.positional('old', COMMANDS.diff.positionals.old).positional('new', COMMANDS.diff.positionals.new).options(COMMANDS.diff.options),
    (argv) => {
      const redactor = keysOfTheShell();
      const [before, after] = [seal(readReport(argv.old!), redactor), seal(readReport(argv.new!), redactor)];
      const diff = diffReports(before, after);
      process.stdout.write(argv.json ? `${JSON.stringify({ formatVersion: REPORT_FORMAT_VERSION, ...diff }, null, 2)}\n` : renderDiff(diff, { old: argv.old!, new: argv.new! }));
      process.exitCode = diff.regression ? 1 : 0;
    },
  )
  .command(
    COMMANDS.badge.command,
    COMMANDS.badge.describe,
    (y) => y.positional('report', COMMANDS.badge.positionals.report).options(COMMANDS.badge.options),
    async (argv) => {
      const { out, link } = argv;
      // A link to a page: a script's scheme (javascript:, data:) would run where the badge is opened.
      if (link !== undefined && (!link || (/^[a-z][a-z0-9+.-]*:/i.test(link) && !/^https?:\/\//i.test(link)))) usageExit(`--link takes an http(s) URL or a relative path (report.html), got '${link}'`);
      if (out !== '-') writable(out, '--out');
      const redactor = keysOfTheShell();
      const report = seal(readReport(argv.report!), redactor);
      const badge = badgeOf(report, argv.label === undefined ? undefined : sealText(argv.label, redactor));
      const svg = await renderBadge(badge, link);
      if (out === '-') return void process.stdout.write(svg);
      writeFileSync(out, svg);
      process.stderr.write(`conformance: badge in ${out}: ${badge.label ? `${badge.label} | ` : ''}${badge.message} (${BADGE_COLOURS[badge.verdict]}: ${badge.why})\n`);
    },
  )
  .command(
    COMMANDS.list.command,
    COMMANDS.list.describe,
    (y) => y.options(COMMANDS.list.options),
    (argv) => {
      const untestable = COVERAGE.filter(isUntestable).map((c) => ({ section: c.section, rule: c.quote, why: c.untestable }));
      if (argv.json) {
        const checks = CHECKS.map(({ run: _r, paths, timeLimitMs: _t, ...meta }) => ({
          ...meta,
          sections: sectionsOf(meta.section),
          axes: Object.keys(paths ?? {}),
          owns: ownsOf(meta.id),
          provenBy: provenBy(meta.id),
        }));
        process.stdout.write(`${JSON.stringify({ formatVersion: REPORT_FORMAT_VERSION, checks, untestable, coverage: COVERAGE, figure: coverageFigure() }, null, 2)}\n`);
        return;
      }
      if (argv.coverage) {
        for (const c of COVERAGE) {
          process.stdout.write(`${`§${c.section || '-'}`.padEnd(8)} ${c.quote}\n`);
          process.stdout.write(`         ${isMapped(c) ? `-> ${c.checks.join(', ')}` : isUntestable(c) ? `not testable: ${c.untestable}` : `no rule: ${c.informative}`}\n`);
        }
        const f = coverageFigure();
        process.stdout.write(`\n${f.ruleBearing} rule-bearing statements: ${f.mapped} mapped to checks, ${f.untestable} not testable from outside, ${f.gaps} gaps\n`);
        return;
      }
      const width = Math.max(...CHECKS.map((c) => c.id.length));
      // A heading per suite, as the reference (docs/reference/checks.md) has them.
      for (const [suite, checks] of Object.entries(SUITES)) {
        const musts = checks.filter((c) => c.level === 'must').length;
        process.stdout.write(`\n${suite} (${checks.length} checks: ${musts} must, ${checks.length - musts} should)\n`);
        for (const c of checks) {
          process.stdout.write(`  ${c.id.padEnd(width)}  ${c.section.padEnd(12)} ${c.level.padEnd(6)}  ${c.title}\n`);
          if (c.paths) process.stdout.write(`  ${''.padEnd(width)}  paths: ${Object.keys(c.paths).join(' × ')}\n`);
          if (c.reads?.length) process.stdout.write(`  ${''.padEnd(width)}  reads: ${c.reads.join(', ')}\n`);
          const owns = ownsOf(c.id);
          if (owns.length) process.stdout.write(`  ${''.padEnd(width)}  owns: ${owns.join(', ')}\n`);
          if (c.audit) process.stdout.write(`  ${''.padEnd(width)}  audit: ${c.audit}\n`);
          const proof = provenBy(c.id);
          process.stdout.write(`  ${''.padEnd(width)}  proven by: ${proof.length ? proof.join(', ') : 'no fault yet'}\n`);
        }
      }
      process.stdout.write(`\n${proofSentence()} ${catalogueSentence()}\n\nNot testable from outside:\n`);
      for (const u of untestable) process.stdout.write(`  ${u.section.padEnd(6)} ${u.rule} (${u.why})\n`);
    },
  )
  .command(
    COMMANDS.mock.command,
    COMMANDS.mock.describe,
    (y) => y.options(COMMANDS.mock.options).conflicts('record', 'replay'),
    async (argv) => {
      const named = namedBoundary(argv['allow-origin'] as string[], argv['allowed-host'] as string[]);
      if (argv.record || argv.replay) return recordOrReplay(argv, named);
      if (argv['allow-remote-record']) usageExit('--allow-remote-record applies to --record and to --replay with --fallback upstream');
      if (argv['list-faults']) {
        const width = Math.max(...FAULTS.map((f) => f.name.length));
        const params = (f: (typeof FAULTS)[number]) =>
          Object.entries(f.params ?? {})
            .map(([name, p]) => `; ${name}=N, default ${p.default}: ${p.describe}`)
            .join('');
        const kind = (f: (typeof FAULTS)[number]) =>
          f.fails.length
            ? `fails ${f.fails.join(', ')}`
            : f.hostile
              ? 'hostile transport'
              : f.frontend
                ? 'for frontends'
                : f.breaksFlowsOnly?.length
                  ? `no check fails; breaks the client flows ${f.breaksFlowsOnly.join(', ')}`
                  : 'legal: fails nothing';
        for (const f of FAULTS) process.stdout.write(`${f.name.padEnd(width)}  ${f.description} (${kind(f)}${params(f)})\n`);
        return;
      }
      let mock: ReturnType<typeof createMock>;
      let tls: ReturnType<typeof serverTls>;
      try {
        let config = argv.config ? loadConfigFile(argv.config) : undefined;
        if (argv.content !== undefined) {
          try {
            parseContent(argv.content);
          } catch (e) {
            throw new Error(`--content: ${(e as Error).message}`);
          }
          config = { ...(config ?? DEFAULT_CONFIG), content: argv.content };
        }
        // The flags add to what the file allows: one boundary, which the banner and the server read.
        if (named.origins.length || named.hosts.length) {
          const base = config ?? DEFAULT_CONFIG;
          const b = boundaryOf(base, named);
          config = { ...base, cors: { ...base.cors, origins: [...b.origins] }, allowed_hosts: [...b.hosts] };
        }
        mock = createMock(withPace(config ?? DEFAULT_CONFIG, argv.pace), { faults: argv.fault as string[], strictScenarios: argv['strict-scenarios'] });
        tls = serverTls({ cert: argv['tls-cert'], key: argv['tls-key'], clientCa: argv['tls-client-ca'] });
      } catch (e) {
        usageExit((e as Error).message);
      }
      const server = await startMockServer({ port: argv.port, host: argv.host, mock, tls, dashboard: argv.dashboard }).catch((e: Error) => cannotListen(e, argv.host, argv.port));
      process.stdout.write(
        banner(server.url, server.mock.config, {
          file: argv.config,
          faults: argv.fault as string[],
          host: argv.host,
          dashboard: argv.dashboard,
          paceFlag: true,
          tls: tls && { cert: argv['tls-cert']!, clientCa: argv['tls-client-ca'] },
        }),
      );
      const stop = () => server.close().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    },
  )
  .demandCommand(1, `name a command: ${Object.keys(COMMANDS).join(', ')}`)
  .recommendCommands()
  .strict()
  .fail((msg, err) => {
    // yargs' own complaint (`--out` given no value) is a usage error; any other, the handler's.
    if (err && err.name !== 'YError') throw err;
    usageExit(usageMessage(msg, hideBin(process.argv)));
  })
  .help()
  // The kit's own, said wherever it runs: yargs looks for a package.json from the working folder up,
  // and printed the user's project's version (or "unknown" outside one).
  .version(pkg.version)
  .parseAsync();

/** The origins and hosts named with --allow-origin and --allowed-host, or exit 2 naming the bad one. */
function namedBoundary(origins: string[], hosts: string[]): Boundary {
  for (const o of origins) {
    const problem = originProblem(o);
    if (problem) usageExit(`--allow-origin: ${problem}`);
  }
  for (const h of hosts) {
    const problem = hostProblem(h);
    if (problem) usageExit(`--allowed-host: ${problem}`);
  }
  return { origins, hosts };
}

async function recordOrReplay(
  argv: {
    record?: string;
    replay?: string;
    upstream?: string;
    'upstream-key'?: string;
    fallback?: string;
    'test-id-header': string;
    redact: string[];
    delays: boolean;
    port: number;
    host: string;
    config?: string;
    fault: unknown;
    'tls-cert'?: string;
    'tls-key'?: string;
    'tls-client-ca'?: string;
    'allow-remote-record': boolean;
  },
  named: Boundary,
): Promise<void> {
  const mode = argv.record ? 'record' : 'replay';
  const dir = (argv.record ?? argv.replay)!;
  // The recordings are the configuration: a second one would be silently ignored.
  if (argv.config) usageExit(`--config does not apply to --${mode}: the files in ${dir} are the configuration`);
  if (mode === 'record' && (argv.fault as string[]).length) usageExit('--fault does not apply to --record: the upstream answers (a replay takes --fault and x-mock-fault)');
  if (argv.upstream && !/^https?:\/\//.test(argv.upstream)) usageExit(`--upstream: expected an http(s) URL, found "${argv.upstream}"`);
  // Requests keep their path (/v1/chat/completions): an upstream given with /v1 would get /v1/v1/...
  if (argv.upstream && baseUrlWarning(argv.upstream))
    process.stderr.write(`conformance: warning: --upstream ends in /v1, and requests keep their /v1/... path: did you mean ${argv.upstream.replace(/\/v1\/?$/, '')}?\n`);
  let tls: ReturnType<typeof serverTls>;
  try {
    tls = serverTls({ cert: argv['tls-cert'], key: argv['tls-key'], clientCa: argv['tls-client-ca'] });
  } catch (e) {
    usageExit((e as Error).message);
  }
  const recorder = await startRecorder({
    tls,
    faults: argv.fault as string[],
    dir,
    mode,
    upstream: argv.upstream,
    upstreamKey: argv['upstream-key'] ?? process.env.CONFORMANCE_UPSTREAM_KEY,
    fallback: argv.fallback === 'upstream',
    testIdHeader: argv['test-id-header'],
    redact: argv.redact,
    noDelays: !argv.delays,
    port: argv.port,
    host: argv.host,
    allowOrigins: [...named.origins],
    allowedHosts: [...named.hosts],
    allowRemote: argv['allow-remote-record'],
    log: (line) => process.stderr.write(`${line}\n`),
  }).catch((e: NodeJS.ErrnoException) => (e.syscall === 'listen' ? cannotListen(e, argv.host, argv.port) : usageExit(e.message)));
  const files = recorder.fixtures.names();
  process.stdout.write(
    [
      mode === 'record'
        ? `recording from ${argv.upstream} on ${recorder.url} into ${dir}`
        : `replaying ${dir} on ${recorder.url} (${files.length} file${files.length === 1 ? '' : 's'}${argv.fallback ? `; unrecorded requests recorded from ${argv.upstream}` : ''})`,
      `a file per test: the ${argv['test-id-header']} header names it (none: default.yaml); any Bearer key is taken${mode === 'record' ? ", the upstream's key is sent in its place" : ''}`,
      ...boundaryLines(named, argv.host, mode === 'record' || argv.fallback === 'upstream'),
      '',
    ].join('\n'),
  );
  const stop = () => recorder.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
