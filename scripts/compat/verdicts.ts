// The kit's verdicts on one server (conformance run and conformance clients, each writing its JSON
// report), and their comparison with the server's written review (compat/reviews/<id>.md).
import { spawn } from 'node:child_process';
import { mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compatDir, root } from './servers.js';

/** The kit's own mock keys: the second, with another model list, opens the key-scope checks (5.2). */
export const KEYS = ['sk-mock-alpha-000000000000000000000001', 'sk-mock-beta-0000000000000000000000002'];
/** The clients of the matrix: the Node ones, which every machine of the kit has (the browser client
 * needs a Chromium that CI's machine may lack, and a matrix must not change with the machine). */
const CLIENTS = ['openai', 'ai-sdk', 'langchain'];
/** Longest a kit command may take: its own --deadline (600 s) and a minute to write its reports. */
const KIT_LIMIT_MS = 11 * 60_000;

export interface CheckVerdict {
  id: string;
  level: string;
  sections: string[];
  outcome: string;
  message?: string;
}

/** What the compatibility table keeps of one server's reports: each check's and each flow's outcome. */
export interface ServerVerdicts {
  checks: Record<string, string>;
  clients: Record<string, string>;
}

export interface KitReports {
  run: { results: (CheckVerdict & Record<string, unknown>)[]; exitCode: number };
  clients: { exitCode: number; clients?: { results: { id: string; client: string; flow: string; outcome: string }[]; absent: { client: string; flow: string; why: string }[] } };
}

function kit(args: string[], log: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const out = openSync(log, 'a');
    const child = spawn(process.execPath, [join(root, 'dist', 'bin', 'conformance.js'), ...args], { cwd: root, stdio: ['ignore', out, out], detached: true });
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {}
      reject(new Error(`conformance ${args[0]} did not end within ${KIT_LIMIT_MS / 1000} s (see ${log})`));
    }, KIT_LIMIT_MS);
    child.on('error', reject);
    child.on('exit', (code) => (clearTimeout(timer), resolve(code ?? 1)));
  });
}

/** Runs the kit's two commands against a server; reports under `reports`, the pretty output in its log. */
export async function runKit(url: string, options: string[], reports: string): Promise<KitReports> {
  mkdirSync(reports, { recursive: true });
  const target = ['--base-url', url, '--api-key', KEYS[0], '--second-api-key', KEYS[1], '--color', 'false', ...options];
  const runJson = join(reports, 'run.json');
  const clientsJson = join(reports, 'clients.json');
  await kit(['run', ...target, '--reporter', 'pretty', '--reporter', `json=${runJson}`], join(reports, 'run.log'));
  await kit(['clients', ...target, ...CLIENTS.flatMap((c) => ['--client', c]), '--reporter', 'pretty', '--reporter', `json=${clientsJson}`], join(reports, 'clients.log'));
  return { run: JSON.parse(readFileSync(runJson, 'utf8')), clients: JSON.parse(readFileSync(clientsJson, 'utf8')) };
}

export function verdictsOf(reports: KitReports): ServerVerdicts {
  const checks = Object.fromEntries(reports.run.results.map((r) => [r.id, r.outcome]));
  const clients = Object.fromEntries((reports.clients.clients?.results ?? []).map((r) => [r.id, r.outcome]));
  return { checks, clients };
}

/** One verdict the review expects: a deviation (fail), a rule that holds (pass), a rule that nothing
 * of the server answers (not-judged: any outcome but pass), or a failure of the kit's that the review
 * settled as the kit's error (kit-wrong: the check fails where the rule holds, the evidence said why). */
export interface Expectation {
  expect: 'fail' | 'pass' | 'not-judged' | 'kit-wrong';
  id: string;
  line: number;
}

const EXPECTATION = /^\s*- (fail|pass|not-judged|kit-wrong) `([\w.-]+)`/;

/** The expectations of a review: its lines `- fail \`check.id\` ...`, `- pass ...`, `- not-judged ...`. */
export function readReview(id: string): Expectation[] {
  return readFileSync(join(compatDir, 'reviews', `${id}.md`), 'utf8')
    .split('\n')
    .flatMap((text, i) => {
      const m = EXPECTATION.exec(text);
      return m ? [{ expect: m[1] as Expectation['expect'], id: m[2], line: i + 1 }] : [];
    });
}

/** Where the kit and the review disagree, one sentence each; none is agreement. */
export function disagreements(server: string, review: Expectation[], checks: Record<string, string>, levels: Record<string, string>): string[] {
  const out: string[] = [];
  const listed = new Map(review.map((e) => [e.id, e]));
  for (const e of review) {
    const outcome = checks[e.id];
    const where = `compat/reviews/${server}.md:${e.line}`;
    if (outcome === undefined) out.push(`${server}: the review names ${e.id}, which the kit has no check of (${where})`);
    else if (e.expect === 'fail' && outcome !== 'fail') out.push(`${server}: the review finds a deviation the kit does not: ${e.id} is ${outcome} (${where})`);
    else if (e.expect === 'pass' && outcome !== 'pass') out.push(`${server}: the review says ${e.id} holds, the kit says ${outcome} (${where})`);
    else if (e.expect === 'not-judged' && outcome === 'pass') out.push(`${server}: a pass where nothing answers: ${e.id} (${where})`);
    else if (e.expect === 'kit-wrong' && outcome !== 'fail') out.push(`${server}: ${e.id}, settled as the kit's error, is ${outcome} now: the review's line is stale (${where})`);
  }
  for (const [id, outcome] of Object.entries(checks)) {
    if (outcome === 'fail' && !['fail', 'kit-wrong'].includes(listed.get(id)?.expect ?? '')) out.push(`${server}: the kit fails ${id} (${levels[id]}), which the review does not list`);
  }
  return out;
}

/** The failures a review settled as the kit's own errors, with the review's words. */
export function kitErrors(id: string): { check: string; why: string }[] {
  return readFileSync(join(compatDir, 'reviews', `${id}.md`), 'utf8')
    .split('\n')
    .flatMap((text) => {
      const m = /^\s*- kit-wrong `([\w.-]+)`[^:]*: (.*)$/.exec(text);
      return m ? [{ check: m[1], why: m[2] }] : [];
    });
}
