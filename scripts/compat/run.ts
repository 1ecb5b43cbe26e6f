// npm run compat [-- ID...]: installs each server of compat/servers.json at its pinned version, starts
// it on 127.0.0.1, runs the kit's run and clients against it, stops it, and compares the verdicts with
// the server's review. A full run writes compat/verdicts.json and docs/compatibility.md; any
// disagreement between the kit and a review is printed and the exit code is 1.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compatibilityPage, type Outcome } from './page.js';
import { evidencePage } from './evidence.js';
import { compatDir, freePort, install, kitOptionsOf, loadServers, root, type Running, type Server, startProcess, startServer } from './servers.js';
import { disagreements, readReview, runKit, type ServerVerdicts, verdictsOf } from './verdicts.js';
import { badgeOf, renderBadge } from '../../report/badge.js';
import type { RunReport } from '../../report/report.js';

/** The kit's own mock as the upstream of a gateway or a proxy, answering at once. */
async function startUpstream(log: string): Promise<Running> {
  const port = await freePort();
  return startProcess([join(root, 'dist', 'bin', 'conformance.js'), 'mock', '--port', String(port), '--pace', 'instant', '--no-dashboard'], {
    cwd: root,
    env: {},
    port,
    log,
    readyPath: '/v1/models',
  });
}

/** Installs, starts, runs the kit against, and stops one server; nothing of it is left running. */
export async function checkServer(server: Server, reports: string): Promise<Outcome> {
  const started = Date.now();
  rmSync(reports, { recursive: true, force: true });
  mkdirSync(reports, { recursive: true });
  const running: Running[] = [];
  try {
    const dir = await install(server, join(reports, 'install.log'));
    const values: Record<string, string> = { port: String(await freePort()) };
    if (server.upstream) {
      const upstream = await startUpstream(join(reports, 'upstream.log'));
      running.push(upstream);
      values.upstream = upstream.url;
    }
    const target = await startServer(server, dir, values, join(reports, 'server.log'));
    running.push(target);
    const kitReports = await runKit(target.url, kitOptionsOf(server, values), reports);
    return { server, reports: kitReports, durationMs: Date.now() - started };
  } catch (e) {
    return { server, error: (e as Error).message, durationMs: Date.now() - started };
  } finally {
    for (const r of running.reverse()) await r.stop();
  }
}

export function levelsOf(outcome: Outcome): Record<string, string> {
  return Object.fromEntries((outcome.reports?.run.results ?? []).map((r) => [r.id, r.level]));
}

async function main(): Promise<void> {
  const started = Date.now();
  const { servers, dropped } = loadServers();
  const only = process.argv.slice(2);
  const chosen = only.length ? servers.filter((s) => only.includes(s.id)) : servers;
  if (chosen.length === 0) throw new Error(`no server named ${only.join(', ')} in compat/servers.json`);
  const outcomes: Outcome[] = [];
  const found: string[] = [];
  for (const server of chosen) {
    process.stdout.write(`${server.id} (${server.package}@${server.version}): `);
    const outcome = await checkServer(server, join(compatDir, 'reports', server.id));
    outcomes.push(outcome);
    if (!outcome.reports) {
      console.log(`did not run: ${outcome.error}`);
      found.push(`${server.id}: did not run: ${outcome.error}`);
      continue;
    }
    const v = verdictsOf(outcome.reports);
    const count = (o: string) => Object.values(v.checks).filter((x) => x === o).length;
    const here = disagreements(server.id, readReview(server.id), v.checks, levelsOf(outcome));
    found.push(...here);
    console.log(
      `${count('pass')} passed, ${count('fail')} failed, ${count('not-tested')} not tested; run exit ${outcome.reports.run.exitCode}, clients exit ${outcome.reports.clients.exitCode}; ${here.length ? `${here.length} disagreements with the review` : 'agrees with the review'} (${Math.round(outcome.durationMs / 1000)} s)`,
    );
  }
  const durationMs = Date.now() - started;
  if (!only.length) {
    const verdicts: Record<string, ServerVerdicts & { version: string }> = {};
    for (const o of outcomes) if (o.reports) verdicts[o.server.id] = { version: o.server.version, ...verdictsOf(o.reports) };
    writeFileSync(join(compatDir, 'verdicts.json'), `${JSON.stringify(verdicts, null, 2)}\n`);
    const kitVersion = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
    const date = new Date().toISOString().slice(0, 10);
    // Each server's badge, as an implementer would show it (conformance badge): the page shows them.
    mkdirSync(join(root, 'docs', 'compatibility'), { recursive: true });
    for (const o of outcomes) {
      if (!o.reports) continue;
      writeFileSync(join(root, 'docs', 'compatibility', `${o.server.id}.svg`), await renderBadge(badgeOf(o.reports.run as unknown as RunReport)));
      writeFileSync(join(root, 'docs', 'compatibility', `${o.server.id}.md`), evidencePage(o.server, o.reports));
    }
    writeFileSync(join(root, 'docs', 'compatibility.md'), compatibilityPage(outcomes, dropped, { date, kitVersion, node: process.versions.node, durationMs, disagreements: found.length }));
    console.log('wrote compat/verdicts.json, docs/compatibility.md, and its badges and evidence pages');
  }
  for (const line of found) console.log(`DISAGREEMENT ${line}`);
  console.log(`compat run time: ${Math.round(durationMs / 1000)} s for ${chosen.length} servers; ${found.length ? `${found.length} disagreements` : 'the kit and every review agree'}`);
  process.exitCode = found.length ? 1 : 0;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
