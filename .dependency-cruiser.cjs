// The rooms of the tree and what each may import (docs/development.md, "Layout"). Run by `npm run lint:deps`
// (and so by CI); test/rooms.test.ts shows that a forbidden import is caught.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle makes two files one: neither can be read, tested or moved alone.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'engine-knows-no-rule',
      severity: 'error',
      comment: 'engine/ runs any check against any server: it knows no rule of the API, no report and no mock.',
      from: { path: '^engine/' },
      to: { path: '^(suites|clients|report|mock|bin|bench|schemas)/' },
    },
    {
      name: 'report-reads-results-only',
      severity: 'error',
      comment: "report/ turns results into output: it reads the engine's result types (and the baseline's schema), never a rule, the mock or the CLI.",
      from: { path: '^report/' },
      to: { path: '^(suites|clients|mock|bin|bench)/' },
    },
    {
      name: 'report-takes-engine-types-only',
      severity: 'error',
      comment:
        "report/ imports the engine's result model (engine/check.ts: results, verdicts, evidence, progress), not its machinery; the report boundary (report/boundary.ts), the one producer of a report, applies the engine's redaction and bounds.",
      from: { path: '^report/', pathNot: '^report/boundary\\.ts$' },
      to: { path: '^engine/', pathNot: '^engine/check\\.ts$' },
    },
    {
      name: 'the-boundary-takes-redaction-and-bounds-only',
      severity: 'error',
      comment: 'The report boundary redacts and bounds: of the engine it reads the result model, the redactor and the bounds.',
      from: { path: '^report/boundary\\.ts$' },
      to: { path: '^engine/', pathNot: '^engine/(check|redact|bounded)\\.ts$' },
    },
    {
      name: 'suites-leave-output-to-report',
      severity: 'error',
      comment:
        'The rules of the API (suites/) do not render output; only the sessions (a run, a load: they run the rules and give the report) and the vitest entry (which applies the gate rule) reach report/.',
      from: { path: '^suites/', pathNot: '^suites/(session|vitest|load/session)\\.ts$' },
      to: { path: '^report/' },
    },
    {
      name: 'only-the-session-starts-the-mock',
      severity: 'error',
      comment: 'suites/ holds the rules; the session is the one place that starts the embedded mock.',
      from: { path: '^suites/', pathNot: '^suites/session\\.ts$' },
      to: { path: '^mock/' },
    },
    {
      name: 'mock-never-imports-suites',
      severity: 'error',
      comment: 'The mock serves the API; the checks that judge it live in suites/. It uses engine/ for parsing, decoding and redaction, never suites/ or report/.',
      from: { path: '^mock/' },
      to: { path: '^(suites|clients|report|bin|bench)/' },
    },
    {
      name: 'schemas-import-nothing-of-the-kit',
      severity: 'error',
      comment: 'schemas/ is the one source of truth: everything reads it, it reads none of them.',
      from: { path: '^schemas/' },
      to: { path: '^(engine|report|suites|clients|mock|bin|bench)/' },
    },
    {
      name: 'nothing-imports-the-docs-generator',
      severity: 'error',
      comment: 'scripts/ writes the reference pages from the kit (npm run docs); the kit never reads it.',
      from: { path: '^(engine|report|suites|clients|mock|schemas|bin|bench)/' },
      to: { path: '^scripts/' },
    },
    {
      name: 'nothing-imports-the-cli',
      severity: 'error',
      comment: 'bin/ wires the rooms together; nothing of the kit imports it.',
      from: { path: '^(engine|report|suites|clients|mock|schemas)/' },
      to: { path: '^bin/' },
    },
    {
      name: 'no-suite-imports-the-clients',
      severity: 'error',
      comment:
        "clients/ holds the flows of the real SDKs, each resting on the suites' checks: it imports suites/ for their rules, and no rule imports a client (a suite must run where no SDK is installed). Only the vitest entry, an entry point like bin/, reaches it, and only when its caller asks for the flows.",
      from: { path: '^suites/', pathNot: '^suites/vitest\\.ts$' },
      to: { path: '^clients/' },
    },
    {
      name: 'clients-use-rules-not-the-mock',
      severity: 'error',
      comment:
        "The flows run against any target as its users' code does: they import the engine (the transport, redaction, the run's context), suites/ (the checks they rest on, the models under test) and the report's client types, never the mock, the command line, the benches or the docs generator.",
      from: { path: '^clients/' },
      to: { path: '^(mock|bin|bench|scripts)/' },
    },
  ],
  options: {
    // TypeScript 7 has no compiler API for dependency-cruiser to parse with; swc reads the sources,
    // type-only imports included (a circle through types is still a circle).
    parser: 'swc',
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
  },
};
