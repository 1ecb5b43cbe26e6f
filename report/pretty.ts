// Human reporter for a terminal: results grouped by document section in document order,
// failures with their evidence, counts per level, warnings, and the verdict with exit code.
import { Chalk, type ChalkInstance } from 'chalk';
import type { CheckResult, Evidence, Level, Outcome } from '../engine/check.js';
import { blockedUnder, flowCountLine, flowCounts, onlyBlocked, OUTCOME_WORDS, reasonPhrase, tlsNote, whyFailing, whyPassing, type RunReport } from './report.js';
import { header, safe } from './text.js';
import { fittedColumns, latencyRows, METRIC_MEANINGS, METRICS, paceNote, rateRows, ruleRows, type LoadReport } from './load.js';
import { clientLines } from './pretty-clients.js';

/** Sort key of a section: `2.3` → [0, 2, 3]; `catalog 2.4` → after every main-document
 * section; an empty section last of all. */
function sectionKey(section: string): { doc: string; parts: string[] } {
  const m = /^\s*([A-Za-z][\w-]*)\s+(.*)$/.exec(section);
  return m ? { doc: m[1].toLowerCase(), parts: m[2].split('.') } : { doc: '', parts: section.trim().split('.') };
}

export function compareSections(a: string, b: string): number {
  if (!a.trim() || !b.trim()) return (a.trim() ? 0 : 1) - (b.trim() ? 0 : 1);
  const ka = sectionKey(a);
  const kb = sectionKey(b);
  if (ka.doc !== kb.doc) return ka.doc === '' ? -1 : kb.doc === '' ? 1 : ka.doc.localeCompare(kb.doc);
  const n = Math.max(ka.parts.length, kb.parts.length);
  for (let i = 0; i < n; i++) {
    const pa = ka.parts[i];
    const pb = kb.parts[i];
    if (pa === undefined) return -1; // "4" before "4.1"
    if (pb === undefined) return 1;
    const na = /^\d+$/.test(pa) ? Number(pa) : NaN;
    const nb = /^\d+$/.test(pb) ? Number(pb) : NaN;
    if (!Number.isNaN(na) && !Number.isNaN(nb)) {
      if (na !== nb) return na - nb;
    } else if (pa !== pb) {
      if (!Number.isNaN(na)) return -1;
      if (!Number.isNaN(nb)) return 1;
      return pa.localeCompare(pb);
    }
  }
  return 0;
}

const TAG: Record<Level, string> = { must: '[MUST]', should: '[SHOULD]', info: '[INFO]' };

function mark(r: CheckResult, c: ChalkInstance): string {
  switch (r.outcome) {
    case 'pass':
      return c.green('✓');
    case 'fail':
      return r.level === 'info' ? c.yellow('!') : c.red('✗');
    case 'skip':
      return c.gray('-');
    case 'not-tested':
      return c.yellow('?');
    case 'flaky':
      return c.yellow('~');
    case 'not-served':
      return c.yellow('⌀');
  }
}

function tag(level: Level, c: ChalkInstance): string {
  const t = TAG[level].padEnd(8);
  return level === 'must' ? c.bold(t) : level === 'should' ? t : c.gray(t);
}

export function evidenceLines(e: Evidence, i: number, c: ChalkInstance, indent: string): string[] {
  const lines = [c.gray(`${indent}evidence ${i + 1}${e.label ? `: ${safe(e.label)}` : ''}`)];
  const pad = `${indent}  `;
  lines.push(`${pad}${c.cyan('→')} ${safe(e.request.method)} ${safe(e.request.url)}`);
  if (e.request.body !== undefined && e.request.body !== '') {
    lines.push(`${pad}  ${c.gray('body:')} ${safe(e.request.body.replace(/\s*\n\s*/g, ' '))}`);
  }
  if (e.status !== undefined) {
    const st = e.status >= 400 ? c.red(String(e.status)) : String(e.status);
    lines.push(`${pad}${c.cyan('←')} ${st}${e.durationMs !== undefined ? c.gray(` (${Math.round(e.durationMs)} ms)`) : ''}`);
  }
  for (const name of ['content-type', 'retry-after']) {
    const v = header(e.headers, name);
    if (v !== undefined) lines.push(`${pad}  ${c.gray(`${name}:`)} ${safe(v)}`);
  }
  if (e.excerpt !== undefined && e.excerpt !== '') {
    lines.push(`${pad}  ${c.gray('body:')}`);
    for (const l of safe(e.excerpt).split('\n')) lines.push(`${pad}    ${l}`);
  }
  if (e.error) lines.push(`${pad}${c.red('error:')} ${safe(e.error)}`);
  if (e.reproduce) lines.push(`${pad}${c.gray('Reproduce with:')} ${safe(e.reproduce)}`);
  return lines;
}

/** How many of a check's paths gave each outcome: `12 paths: 10 passed, 2 failed`. */
function pathCounts(r: CheckResult): string {
  const paths = r.paths ?? [];
  const by = (o: Outcome) => paths.filter((p) => p.outcome === o).length;
  const parts = (['pass', 'fail', 'flaky', 'not-tested', 'not-served', 'skip'] as const)
    .map((o) => [OUTCOME_WORDS[o], by(o)] as const)
    .filter(([, n]) => n)
    .map(([w, n]) => `${n} ${w}`);
  return paths.length > 1 ? `${paths.length} paths${parts.length > 1 ? `: ${parts.join(', ')}` : ''}` : '';
}

function resultLines(r: CheckResult, c: ChalkInstance, under: Map<string, CheckResult[]>): string[] {
  const also = r.section.includes(',') ? c.gray(` (§${safe(r.section)})`) : '';
  const counts = pathCounts(r);
  const title = `${mark(r, c)} ${tag(r.level, c)} ${c.bold(safe(r.id))}: ${safe(r.title)}${also}${counts ? c.gray(` [${counts}]`) : ''}`;
  const lines = [`  ${title}`];
  const ind = '      ';
  const msg = r.message ? safe(r.message) : undefined;
  const deciding = (r.paths ?? []).filter((p) => p.outcome === r.outcome && p.label);
  if (r.expected) lines.push(`${ind}${c.yellow(`expected failure (baseline): ${safe(r.expected.reason)}`)}`);
  if (r.outcome === 'fail' && r.level !== 'info' && deciding.length) {
    // Each failing path on its own: its name, what broke, and the exchanges that show it.
    if (r.convention) lines.push(`${ind}${c.gray(`convention: ${safe(r.convention)}`)}`);
    for (const p of deciding) {
      lines.push(`${ind}${c.red(`[${safe(p.label)}]`)} ${c.red(p.message ? safe(p.message) : 'failed')}`);
      p.evidence.forEach((e, i) => lines.push(...evidenceLines(e, i, c, `${ind}  `)));
    }
  } else if (r.outcome === 'fail' && r.level !== 'info') {
    lines.push(`${ind}${c.red(msg ?? 'failed')}`);
    if (r.convention) lines.push(`${ind}${c.gray(`convention: ${safe(r.convention)}`)}`);
    r.evidence.forEach((e, i) => lines.push(...evidenceLines(e, i, c, ind)));
  } else if (r.outcome === 'fail') {
    if (msg) lines.push(`${ind}${c.yellow('note:')} ${msg}`);
  } else if (r.outcome === 'not-tested' && onlyBlocked(r, under)) {
    // Its cause is reported once, under the failure that blocked it.
    lines.push(`${ind}${c.yellow('not tested:')} blocked by ${r.blockedBy!.map(safe).join(', ')} (see there)`);
  } else if (r.outcome === 'not-tested' || r.outcome === 'not-served') {
    lines.push(`${ind}${c.yellow(`${OUTCOME_WORDS[r.outcome]}:`)} ${msg ?? 'no reason given'}`);
  } else if (r.outcome === 'flaky') {
    // Shown in full, as a failure is: whether to trust the second answer is the reader's call.
    lines.push(`${ind}${c.yellow('flaky:')} ${msg ?? 'broke, then held when sent again'}`);
    r.evidence.forEach((e, i) => lines.push(...evidenceLines(e, i, c, ind)));
  } else if (r.outcome === 'skip' && msg) {
    lines.push(`${ind}${c.gray(`skipped: ${msg}`)}`);
  }
  const blocked = r.outcome === 'fail' ? (under.get(r.id) ?? []) : [];
  if (blocked.length)
    lines.push(
      `${ind}${c.yellow(`${safe(r.id)} failed; ${blocked.length} check${blocked.length === 1 ? '' : 's'} could not judge ${blocked.length === 1 ? 'its rule' : 'their rules'} without it:`)} ${blocked.map((b) => safe(b.id)).join(', ')}`,
    );
  for (const n of r.notes ?? []) lines.push(`${ind}${c.yellow('note:')} ${safe(n)}`);
  return lines;
}

/** The widest a table of the sweep is printed: a terminal of 100 columns shows it whole. */
const LOAD_WIDTH = 100;

/** A text in lines of at most `width` characters, broken where words end (a longer word alone). */
function linesOf(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const word of text.split(' ')) {
    const last = lines.at(-1);
    if (last !== undefined && last.length + 1 + word.length <= width) lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  return lines;
}

/** The sweep: what broke under load first, the profile per step (rates, then latencies, with what
 * each measures), per rule how many answers held, and the objectives' verdict beside the rules'. */
function loadLines(load: LoadReport, results: readonly CheckResult[], c: ChalkInstance): string[] {
  const out = ['', c.bold(`Load (${load.mode === 'open' ? 'arrival rates' : 'requests in flight'}; ${safe(load.model)}; ${load.workload.length} requests in the mix)`)];
  for (const b of load.breaksUnderLoad) out.push(`  ${c.red('breaks under load:')} ${safe(b.check)} held alone, broke at ${safe(b.brokeAt)} (${b.held} of ${b.of} held)`);
  const pace = paceNote(load);
  if (pace) out.push(...linesOf(safe(pace), LOAD_WIDTH - 2).map((l) => `  ${c.yellow(l)}`));
  out.push(...fittedColumns(rateRows(load), LOAD_WIDTH).map(safe), '');
  out.push('  latency in ms at each step: p50 / p90 / p99 / max', ...fittedColumns(latencyRows(load), LOAD_WIDTH).map(safe));
  out.push(...METRICS.map((m) => c.gray(`  ${m.padEnd(4)}  ${METRIC_MEANINGS[m]}`)));
  const rows = ruleRows(load);
  const broken = rows.filter((r, i) => i === 0 || r.slice(1).some((cell) => /^(\d+)\/(\d+)$/.test(cell) && cell.split('/')[0] !== cell.split('/')[1]));
  const slos = results.filter((r) => r.section === '--slo');
  const missed = slos.filter((r) => r.outcome === 'fail');
  const objectives = slos.length ? `; ${missed.length} of ${slos.length} objectives (--slo) failed${missed.length ? `: ${missed.map((r) => safe(r.id)).join(', ')}` : ''}` : '';
  out.push('', `  ${broken.length - 1} of ${rows.length - 1} rules broke on some answer${objectives}${broken.length > 1 ? ' (rules: held/judged per step):' : ''}`);
  if (broken.length > 1) out.push(...fittedColumns(broken, LOAD_WIDTH).map(safe));
  for (const s of load.steps) if (s.slowest) out.push(c.gray(`  slowest at ${safe(s.label)}: ${safe(s.slowest.label)}, ${s.slowest.ms} ms`));
  return out;
}

function sectionHeading(section: string): string {
  if (!section.trim()) return '(no section)';
  const m = /^\s*([A-Za-z][\w-]*)\s+(.*)$/.exec(section);
  return m ? `${m[1]} §${m[2]}` : `§${section.trim()}`;
}

const LEVELS: Level[] = ['must', 'should', 'info'];

/** What the sum of max_tokens leaves out: requests with no cap, and those sent to be refused; and
 * what locating refusals cost (suites/ask.ts), none where nothing was refused. */
function costApart(cost: NonNullable<RunReport['cost']>): string {
  const apart = [
    cost.uncapped ? `${cost.uncapped} chat request${cost.uncapped === 1 ? '' : 's'} with no max_tokens` : '',
    cost.refused ? `${cost.refused} sent to be refused, not counted` : '',
    cost.askedAgain ? `${cost.askedAgain} asked again with less to find which field a refusal was of` : '',
  ].filter(Boolean);
  return apart.length ? ` (and ${apart.join('; ')})` : '';
}

function countLine(level: Level, counts: Record<Outcome, number>, c: ChalkInstance): string {
  const parts = [`${counts.pass} passed`, counts.fail ? c.red(`${counts.fail} failed`) : '0 failed', counts['not-tested'] ? c.yellow(`${counts['not-tested']} not tested`) : '0 not tested'];
  // The rarer outcomes only where they occur.
  for (const o of ['flaky', 'not-served'] as const) if (counts[o]) parts.push(c.yellow(`${counts[o]} ${OUTCOME_WORDS[o]}`));
  if (counts.skip) parts.push(`${counts.skip} skipped`);
  return `${level}: ${parts.join(', ')}`;
}

export function renderPretty(report: RunReport, opts: { color: boolean }): string {
  const c = new Chalk({ level: opts.color ? 1 : 0 });
  const out: string[] = [];
  const mock = report.target.embeddedMock ? ' (embedded mock)' : '';
  const tls = tlsNote(report);
  out.push(
    `${c.bold(`${safe(report.tool.name)} ${safe(report.tool.version)}`)} → ${safe(report.target.baseUrl)}${mock}${tls ? (report.target.tls?.insecure ? c.yellow : c.gray)(`; ${safe(tls)}`) : ''}`,
  );
  out.push(
    c.gray(`started ${safe(report.startedAt)}, ${(report.durationMs / 1000).toFixed(1)} s${report.options.strict ? ', strict' : ''}${report.options.requireComplete ? ', require-complete' : ''}`),
  );
  if (report.stopped) out.push(c.yellow(`stopped before the end: ${safe(report.stopped)}; what had not finished is not tested`));

  // Grouped by the first section a check names; the others are shown on its line.
  const bySection = new Map<string, CheckResult[]>();
  for (const r of report.results) {
    const primary = r.section.split(',')[0].trim();
    const list = bySection.get(primary);
    if (list) list.push(r);
    else bySection.set(primary, [r]);
  }
  const under = blockedUnder(report.results);
  for (const section of [...bySection.keys()].sort(compareSections)) {
    out.push('', c.bold.underline(sectionHeading(section)));
    for (const r of bySection.get(section)!) out.push(...resultLines(r, c, under));
  }

  // As pytest's short summary: one line per failed check, where a reader starts.
  const failed = report.results.filter((r) => r.outcome === 'fail' && r.level !== 'info');
  if (failed.length) {
    out.push('', c.bold('Failed'));
    for (const r of failed) {
      const blocked = under.get(r.id)?.length;
      out.push(
        `  ${c.red('FAILED')} ${safe(r.id)} ${TAG[r.level]} §${safe(r.section)}${r.expected ? c.yellow(' (expected)') : ''}: ${safe(reasonPhrase(r))}${blocked ? c.gray(` (+${blocked} blocked)`) : ''}`,
      );
    }
  }

  if (report.load) out.push(...loadLines(report.load, report.results, c));
  if (report.clients) out.push(...clientLines(report.clients, c, evidenceLines));

  out.push('', c.bold('Summary'));
  for (const level of LEVELS) {
    const counts = report.summary[level];
    // No check is info-level today; its line appears once one exists.
    if (level !== 'info' || Object.values(counts).some((n) => n > 0)) out.push(`  ${countLine(level, counts, c)}`);
  }
  // The matrix's cells, counted as it shows them; which of them fail the run, apart.
  const flows = flowCounts(report);
  if (flows) out.push(`  client flows: ${safe(flowCountLine(flows))}`);

  if (report.baseline) {
    const b = report.baseline;
    out.push('', c.bold('Baseline'));
    out.push(
      `  ${safe(b.file)}${b.updated ? ' (written from this run)' : ''}: ${b.expected} expected failure${b.expected === 1 ? '' : 's'}, ${b.stale.length} stale entr${b.stale.length === 1 ? 'y' : 'ies'}`,
    );
    for (const e of b.stale) out.push(`  ${c.red('stale:')} ${safe(e.why)} (${safe(e.reason)})`);
  }

  if (report.notes?.length) {
    out.push('', c.bold('Paths'));
    for (const n of report.notes) out.push(`  ${safe(n)}`);
    if (report.requestsSent !== undefined)
      out.push(`  ${report.requestsSent} requests sent${report.cost ? `, asking for at most ${report.cost.maxTokens} tokens in all${costApart(report.cost)}` : ''}`);
  }

  if (report.warnings.length) {
    out.push('', c.bold('Warnings'));
    for (const w of report.warnings) out.push(`  ${c.yellow('warning:')} ${safe(w)}`);
  }

  out.push('');
  if (report.exitCode === 0) {
    const why = whyPassing(report);
    out.push(`${c.green.bold('PASSED')} (exit code ${report.exitCode})${why.length ? `: ${why.join('; ')}` : ''}`);
  } else {
    // The same rule as the exit code, counted per kind.
    const why = whyFailing(report);
    if (report.baseline?.stale.length) why.push(`${report.baseline.stale.length} stale baseline entr${report.baseline.stale.length === 1 ? 'y' : 'ies'}`);
    out.push(`${c.red.bold('FAILED') + (why.length ? `: ${why.join(', ')}` : '')} (exit code ${report.exitCode})`);
  }
  return `${out.join('\n')}\n`;
}
