// The GitHub Action (action.yml) in one place: its inputs, as INPUT_<NAME> variables, become the
// flags of `conformance run` of the same names, one to one; the reports a workflow wants (JUnit, the
// markdown job summary, annotations, HTML) are added; the run's exit code is the step's.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Inputs that take a value, and inputs that switch a flag on ("true"). */
export const VALUE_INPUTS = [
  'base-url',
  'api-key',
  'second-api-key',
  'site-url',
  'model',
  'suite',
  'check',
  'expected-failures',
  'timeout',
  'idle-timeout',
  'concurrency',
  'max-body',
  'deadline',
  'wait',
  'ca-cert',
  'client-cert',
  'client-key',
  'fuzz',
  'fuzz-runs',
] as const;
/** The keys go to the command through the variables it reads them from, never its arguments, which
 * any process of the machine may list. */
const KEYS: Record<string, string> = { 'api-key': 'CONFORMANCE_API_KEY', 'second-api-key': 'CONFORMANCE_SECOND_API_KEY' };
export const SWITCH_INPUTS = ['all-models', 'strict', 'require-complete', 'insecure', 'clients'] as const;
/** Inputs that may hold several values, one per line. */
const MANY = new Set(['model', 'suite', 'check']);

const variable = (input: string) => `INPUT_${input.toUpperCase().replace(/-/g, '_')}`;

/** The arguments of `conformance run` for the inputs in `env`, and the variables that carry the keys. */
export function commandFor(env: Record<string, string | undefined>, reportsDir = 'conformance-reports'): { args: string[]; env: Record<string, string> } {
  const args = ['run'];
  const keys: Record<string, string> = {};
  for (const input of VALUE_INPUTS) {
    const value = env[variable(input)]?.trim();
    if (!value) continue;
    if (KEYS[input]) keys[KEYS[input]] = value;
    else
      for (const one of MANY.has(input)
        ? value
            .split(/\r?\n/)
            .map((v) => v.trim())
            .filter(Boolean)
        : [value])
        args.push(`--${input}`, one);
  }
  for (const input of SWITCH_INPUTS) if (env[variable(input)]?.trim() === 'true') args.push(`--${input}`);
  args.push('--reporter', 'github', '--reporter', `junit=${reportsDir}/junit.xml`, '--reporter', `html=${reportsDir}/report.html`, '--reporter', `json=${reportsDir}/report.json`);
  if (env.GITHUB_STEP_SUMMARY) args.push('--reporter', 'markdown');
  return { args, env: keys };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const bin = fileURLToPath(new URL('./conformance.js', import.meta.url));
  const command = commandFor(process.env, process.env.INPUT_REPORTS_DIR || 'conformance-reports');
  const r = spawnSync(process.execPath, [bin, ...command.args], { stdio: 'inherit', env: { ...process.env, ...command.env } });
  process.exit(r.status ?? 1);
}
