// The command line as data: each command, what it does, its positionals and its options, as yargs
// takes them. conformance.ts applies them, the usage errors suggest from them, and the reference
// (docs/reference/cli.md, `npm run docs`) is generated from them: a new option or command is written
// here once, and the reference follows by regeneration.
import type { Options, PositionalOptions } from 'yargs';
import { REPORTER_NAMES } from '../report/index.js';
import { DOCUMENT_NAME } from '../report/badge.js';
import { SUITES } from '../suites/index.js';
import { DEFAULT_DEADLINE_MS } from '../suites/session.js';
import { DEFAULT_WAIT_MS } from '../suites/ready.js';
import { FUZZ_DEFAULTS, FUZZ_PASS } from '../suites/fuzz/index.js';
import { PROFILE_NAMES } from '../mock/core/content/profiles.js';
import { TEST_ID_HEADER } from '../mock/record/server.js';
import { LOAD_DEFAULTS } from '../suites/load/session.js';
import { CLIENTS, FLOWS } from '../clients/index.js';

export interface CommandSpec {
  /** yargs' command string, positionals included: `diff <old> <new>`. */
  command: string;
  describe: string;
  positionals?: Readonly<Record<string, PositionalOptions>>;
  options: Readonly<Record<string, Options>>;
}

/** The target and the reports: the options `run`, `fuzz` and `load` share. */
export const TARGET = {
  'base-url': {
    type: 'string',
    describe: 'Base URL of the API, without /v1 (one ending in /v1 gets a warning); without it, the bundled mock is started on a free 127.0.0.1 port and tested',
  },
  'api-key': { type: 'string', describe: 'API key (or CONFORMANCE_API_KEY)' },
  'second-api-key': { type: 'string', describe: 'A second key with another model list (or CONFORMANCE_SECOND_API_KEY): enables the key-scope checks of section 5.2' },
  'site-url': {
    type: 'string',
    describe: "Where /models.json lives (default: the base URL's origin); when the catalog is missing there and this was not given, the catalog checks are not-tested with that hint",
  },
  model: { type: 'string', array: true, describe: 'Model(s) to test, repeatable (default: one of each kind the key lists)' },
  reporter: {
    type: 'string',
    array: true,
    default: ['pretty'] as string[],
    describe: `One of ${REPORTER_NAMES.join(', ')}, repeatable; NAME=FILE writes to a file, without =FILE to standard output (one at most; markdown goes to $GITHUB_STEP_SUMMARY when that is set)`,
  },
  output: { type: 'string', describe: 'The file of the only, or first non-pretty, reporter' },
  header: { type: 'string', array: true, default: [] as string[], describe: "An extra header on every request, 'Name: value' (repeatable; its value is redacted like a key)" },
  'ca-cert': { type: 'string', describe: "PEM file of CA certificate(s) trusted besides Node.js's store, for the API and the catalog" },
  insecure: { type: 'boolean', default: false, describe: "Do not verify the server's TLS certificate (every report says so)" },
  'client-cert': { type: 'string', describe: 'PEM client certificate for mutual TLS' },
  'client-key': { type: 'string', describe: "PEM private key of --client-cert (default: the key in that certificate's file)" },
  timeout: {
    type: 'number',
    default: 60_000,
    describe:
      'Deadline of each request, in ms, from its sending to its last byte: the wait for headers included, however many 1xx answers come first. The connect limit (10 s) is capped by it. An answer it cuts is not-tested, never failed (but by fuzz.within-timeout and load.no-starvation, whose rule it is)',
  },
  'idle-timeout': {
    type: 'number',
    default: 30_000,
    describe:
      'Longest silence within a body, in ms, once its headers came: an engine busy with other work may pause longer mid-stream. An answer it cuts is not-tested, never failed (but by fuzz.within-timeout and load.no-starvation); at or above --timeout it never fires, the deadline coming first',
  },
  'max-body': {
    type: 'number',
    default: 8 * 1024 * 1024,
    describe: 'Most bytes read of one response, counted after decoding: reading stops there, and of a cut body only its start is kept; what it cuts is not-tested, never failed',
  },
  'expected-failures': {
    type: 'string',
    describe: 'A baseline (JSON or YAML) of accepted failures: listed failures do not fail the run, listed checks that pass again do (stale), an unknown check id is a usage error',
  },
  'update-baseline': { type: 'boolean', default: false, describe: 'Write the --expected-failures file from this run' },
  deadline: {
    type: 'number',
    default: DEFAULT_DEADLINE_MS,
    describe: 'Deadline of the whole run, in ms, from the moment the server is ready (--wait): what has not finished by then is not-tested and the reports are written',
  },
  wait: {
    type: 'string',
    default: `${DEFAULT_WAIT_MS / 1000}s`,
    describe:
      'Before the first check, how long to wait for a server that answers 503 as it gets ready (a model loading): GET /v1/models is asked again at its Retry-After (never past this bound) or each second; a server still not ready is exit 2. 30s, 500ms, 2m, or seconds; 0 does not wait',
  },
  color: { type: 'boolean', describe: 'Force colour on or off (default: on for a terminal, off with NO_COLOR)' },
} as const satisfies Record<string, Options>;

/** The target, the reports, and how checks run: what `run` and `fuzz` take. */
export const CHECKED = {
  ...TARGET,
  'all-models': { type: 'boolean', default: false, describe: 'Test every listed model, not one of each kind, and try every listed id (more requests: a hosted service bills each)' },
  concurrency: { type: 'number', default: 4, describe: 'Checks and requests in flight at once' },
} as const satisfies Record<string, Options>;

/** What fails a run besides a failed must: the gate `run` and `load` share. */
const GATE = {
  strict: { type: 'boolean', default: false, describe: 'A failed should, and a flaky check (broke, then held when sent again), fail the run too' },
  'require-complete': { type: 'boolean', default: false, describe: 'A must left not tested, not served or flaky fails the run' },
} as const satisfies Record<string, Options>;

const RUN = {
  ...CHECKED,
  suite: { type: 'string', array: true, choices: Object.keys(SUITES), describe: 'Only these suites (repeatable); a filtered-out check sends nothing' },
  check: { type: 'string', array: true, describe: "Only checks whose id matches one of these globs ('stream.*'); a filtered-out check sends nothing" },
  ...GATE,
  // Declared as `fuzz` (on by default): yargs reads --no-fuzz as its negation.
  fuzz: { type: 'boolean', default: true, describe: 'The short fuzz pass (generated requests); --no-fuzz leaves it out' },
  'fuzz-runs': { type: 'number', describe: `Requests of the fuzz pass (default ${FUZZ_PASS.runs}); more widens it, from the same seed` },
  clients: { type: 'boolean', default: false, describe: 'Also run the client flows of conformance clients (the installed SDKs), each failure explained by the checks of this run' },
} as const satisfies Record<string, Options>;

/** Which client flows run: `clients` takes them, `run --clients` runs them all. */
const CLIENT_CHOICE = {
  client: { type: 'string', array: true, choices: CLIENTS.map((c) => c.name), describe: 'Only these clients (repeatable; default: every one installed); one not installed is a usage error' },
  flow: { type: 'string', array: true, choices: FLOWS.map((f) => f.name), describe: 'Only these flows (repeatable)' },
  'page-host': {
    type: 'string',
    describe:
      "The host name the browser client's page is served as, mapped to 127.0.0.1 in Chromium (your app's, e.g. app.example.com): its origin is the one the API's CORS is judged for (default 127.0.0.1)",
  },
} as const satisfies Record<string, Options>;

const CLIENTS_OPTIONS = { ...CHECKED, ...CLIENT_CHOICE, ...GATE } as const satisfies Record<string, Options>;

const FUZZ = {
  ...CHECKED,
  check: { type: 'string', array: true, describe: 'Only the properties whose id matches one of these globs (fuzz.no-5xx)' },
  seed: { type: 'number', describe: 'Seed of the generated requests, 0 to 4294967295 (default: a random one, printed); the same seed gives the same requests' },
  runs: { type: 'number', default: FUZZ_DEFAULTS.runs, describe: 'Requests generated' },
  'max-requests': {
    type: 'number',
    describe: `Most requests of the session, shrinking and re-sends included (default: --runs plus ${FUZZ_DEFAULTS.maxRequests - FUZZ_DEFAULTS.runs}); each failing property shrinks within its share of what is left. Shrinking comes on top of the runs: the session keeps 41 of them (half at most) for shrinking and the re-send, and generates fewer than --runs where they would not be left`,
  },
} as const satisfies Record<string, Options>;

const LOAD = {
  ...TARGET,
  concurrency: { type: 'string', describe: `Requests in flight at each step, a list (default ${LOAD_DEFAULTS.concurrency.join(',')})` },
  rate: { type: 'string', describe: 'Arrivals a second at each step, a list (an open loop, Poisson), instead of --concurrency' },
  duration: { type: 'string', describe: 'How long each step lasts (30s, 500ms); default: 4 requests per request in flight' },
  'start-at': {
    type: 'string',
    describe:
      'Begin the first step at this instant (2026-11-29T13:00:00Z, with its zone, or Unix milliseconds) and each next one 1.25 times --duration later: processes given the same instant sweep as one, and --merge adds up steps that ran together (docs/load.md)',
  },
  requests: { type: 'number', describe: 'Requests per step (refusals sent again included)' },
  'max-tokens': { type: 'number', describe: 'A workload of its own: the long essay at this max_tokens, streamed and not' },
  slo: { type: 'string', array: true, default: [] as string[], describe: "An objective held at every step: 'ttft_p99<2000ms', 'e2e_p50<1s', 'error_rate<1%', 'rps>=20' (repeatable)" },
  seed: { type: 'number', describe: 'Seed of the arrivals of --rate: the same seed, the same schedule' },
  ...GATE,
  merge: { type: 'string', array: true, describe: 'Send nothing: merge the JSON reports of processes that ran one sweep at once into one report (docs/load.md)' },
} as const satisfies Record<string, Options>;

const JSON_OUTPUT = { json: { type: 'boolean', default: false, describe: 'Machine-readable' } } as const satisfies Record<string, Options>;

const MOCK = {
  port: { type: 'number', default: 8080, describe: 'The port to listen on; 0 takes a free one (the banner prints it)' },
  host: { type: 'string', default: '127.0.0.1', describe: 'The address to listen on; another than a loopback one is reachable from the network (the banner warns)' },
  config: { type: 'string', describe: 'A configuration file (JSON or YAML): keys, models, scenarios, timing, faults' },
  'tls-cert': { type: 'string', describe: 'Serve https with this PEM certificate (or chain, leaf first); with --tls-key' },
  'tls-key': { type: 'string', describe: 'The PEM private key of --tls-cert' },
  'tls-client-ca': { type: 'string', describe: 'With --tls-cert: require a client certificate signed by a CA of this PEM file (mutual TLS)' },
  'strict-scenarios': { type: 'boolean', describe: 'Refuse a chat request no scenario matches (a 400 naming the closest)' },
  pace: {
    choices: ['human', 'instant'] as const,
    describe: 'How generated replies are paced: human types as a hosted model does (the default, unless --config sets a timing), instant answers at once',
  },
  content: { type: 'string', describe: `What generated replies hold, for every model: a profile (${PROFILE_NAMES.join(', ')}) and/or split=bytes|fence, e.g. "markdown; split=fence"` },
  fault: { type: 'string', array: true, default: [] as string[], describe: "Serve with a named fault (repeatable; 'name; key=value' for parameters); see --list-faults" },
  'list-faults': { type: 'boolean', default: false, describe: 'List the fault catalogue and exit' },
  record: { type: 'string', describe: 'Proxy to --upstream and save each exchange as a scenario in this folder (a file per test)' },
  replay: { type: 'string', describe: 'Answer from the recordings in this folder' },
  upstream: { type: 'string', describe: 'The real server to record from (its base URL)' },
  'upstream-key': { type: 'string', describe: 'The key sent to the upstream (better: $CONFORMANCE_UPSTREAM_KEY); never written' },
  fallback: { choices: ['upstream'] as const, describe: 'With --replay: record what has no recording from --upstream' },
  'test-id-header': { type: 'string', default: TEST_ID_HEADER, describe: 'The request header naming the test, and so the file of its recordings' },
  redact: { type: 'string', array: true, default: [] as string[], describe: 'A header name or a value to keep out of recordings (repeatable)' },
  // Declared as `delays` (on by default): yargs reads --no-delays as its negation.
  delays: { type: 'boolean', default: true, describe: 'With --replay: keep the recorded pace; --no-delays answers at once' },
  'allow-origin': {
    type: 'string',
    array: true,
    default: [] as string[],
    describe: 'Let pages of this origin call the mock, besides loopback ones (repeatable; * for any page, never the /__mock/ routes)',
  },
  'allowed-host': {
    type: 'string',
    array: true,
    default: [] as string[],
    describe: 'Answer requests addressed to this host name, besides IP addresses, localhost and *.localhost (repeatable; .team.lan for it and its subdomains)',
  },
  'allow-remote-record': { type: 'boolean', default: false, describe: 'Record (or --fallback upstream) on a non-loopback --host: whoever reaches it spends the upstream key' },
  // Declared as `dashboard` (on by default): yargs reads --no-dashboard as its negation.
  dashboard: {
    type: 'boolean',
    default: true,
    describe: 'Serve the live dashboard at /__mock/ (requests as they arrive; faults, content and pace switched live); --no-dashboard turns it off',
  },
} as const satisfies Record<string, Options>;

/** The unit of each number option that has one, as its description says it (`in ms`): a usage
 * error names it (`--timeout takes a positive whole number of milliseconds`). */
export const UNITS: Readonly<Record<string, 'milliseconds' | 'bytes' | 'tokens'>> = {
  timeout: 'milliseconds',
  'idle-timeout': 'milliseconds',
  deadline: 'milliseconds',
  'max-body': 'bytes',
  'max-tokens': 'tokens',
};

/** Every command, in the order `conformance --help` lists them. */
export const COMMANDS = {
  run: { command: 'run', describe: 'Run the checks against a server (the bundled mock when no --base-url is given)', options: RUN },
  clients: {
    command: 'clients',
    describe:
      'Run the flows users write in the real client libraries installed (openai, the AI SDK, LangChain) against a server, with the checks each rests on: a matrix of flows against clients, and what breaks which',
    options: CLIENTS_OPTIONS,
  },
  fuzz: {
    command: 'fuzz',
    describe: 'Send generated requests (valid, invalid, edge values) and hold every answer to the fuzz properties; a failure is shrunk to the smallest request that breaks it',
    options: FUZZ,
  },
  load: {
    command: 'load',
    describe: 'Judge every answer while the server is busy: a sweep of concurrency steps (or arrival rates), the rules of run held on each answer, the load rules, and the latency profile',
    options: LOAD,
  },
  diff: {
    command: 'diff <old> <new>',
    describe:
      'Compare two JSON reports (--reporter json): checks newly failing, newly passing, with another level or another finding, and client flows newly failing or passing; exit 1 on a regression',
    positionals: {
      old: { type: 'string', demandOption: true, describe: 'The earlier report (main)' },
      new: { type: 'string', demandOption: true, describe: 'The later report (the branch)' },
    },
    options: JSON_OUTPUT,
  },
  badge: {
    command: 'badge <report>',
    describe:
      "Write an SVG badge in the shields.io look from a JSON report (--reporter json), to link to the HTML report from a README: the document's name, the musts passed of those judged and the run's date, green where the run passed, red where a must failed or the run failed, orange where musts left unjudged failed it",
    positionals: { report: { type: 'string', demandOption: true, describe: 'The JSON report of a run' } },
    options: {
      out: { type: 'string', requiresArg: true, default: 'badge.svg', describe: 'The SVG file written; - for standard output' },
      label: { type: 'string', describe: `The text on the left (default ${DOCUMENT_NAME}, the document's name)` },
      link: { type: 'string', describe: 'Make the badge a link to this URL (the HTML report): http(s), or a path relative to the badge' },
    },
  },
  list: {
    command: 'list',
    describe: 'List every check with its id, section and level, and what cannot be tested',
    options: { ...JSON_OUTPUT, coverage: { type: 'boolean', default: false, describe: 'The map of the document: each statement and the checks that enforce it' } },
  },
  mock: { command: 'mock', describe: 'Serve the reference mock over HTTP (HTTPS with --tls-cert and --tls-key)', options: MOCK },
} as const satisfies Record<string, CommandSpec>;

/** The options every command takes besides its own. */
export const GLOBAL_OPTIONS = ['help', 'version'] as const;
