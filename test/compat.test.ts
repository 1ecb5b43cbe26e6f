// The published verdicts on real servers (docs/compatibility.md) stay what they are: the servers of
// compat/servers.json marked "ci" (the quickest to install) are installed from the npm registry at
// their pinned versions, run against, and their verdicts held to compat/verdicts.json and to their
// review. A change of the kit that moves a verdict on a real server fails here until the review or
// the recorded verdicts (npm run compat) are changed on purpose. Without the registry, it is skipped.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evidencePage } from '../scripts/compat/evidence.js';
import { compatibilityPage } from '../scripts/compat/page.js';
import { checkServer, levelsOf } from '../scripts/compat/run.js';
import { compatDir, loadServers } from '../scripts/compat/servers.js';
import { disagreements, readReview, verdictsOf } from '../scripts/compat/verdicts.js';
import { anchorsOf } from './support/markdown.js';

const servers = loadServers().servers.filter((s) => s.ci);
const recorded = JSON.parse(readFileSync(join(compatDir, 'verdicts.json'), 'utf8'));

/** The registry answers for the first server's pinned version (npm's own client, its own retries). */
function registryReachable(): boolean {
  const s = servers[0];
  const r = spawnSync('npm', ['view', `${s.package}@${s.version}`, 'version', '--prefer-offline'], { encoding: 'utf8', timeout: 120_000 });
  return r.status === 0 && r.stdout.trim() === s.version;
}

const reachable = servers.length > 0 && registryReachable();
if (!reachable) console.log('compat.test.ts: skipped: the npm registry is not reachable, so no server of compat/servers.json can be installed');

describe.skipIf(!reachable)('published verdicts on real servers', () => {
  for (const server of servers) {
    it(`${server.name} ${server.version}: the kit's verdicts are the recorded ones and agree with its review`, { timeout: 15 * 60_000 }, async () => {
      const outcome = await checkServer(server, join(tmpdir(), 'chat-api-compat-test', server.id));
      expect(outcome.error).toBeUndefined();
      const v = verdictsOf(outcome.reports!);
      expect(v.checks).toEqual(recorded[server.id].checks);
      expect(v.clients).toEqual(recorded[server.id].clients);
      expect(disagreements(server.id, readReview(server.id), v.checks, levelsOf(outcome))).toEqual([]);
      // Every finding of the table and of the client matrix links to a heading of the server's evidence
      // page, as GitHub anchors it; every failed check and broken flow has one; no run's port is kept.
      const page = compatibilityPage([outcome], [], { date: 'today', kitVersion: '0', node: process.versions.node, durationMs: 0, disagreements: 0 });
      const evidence = evidencePage(server, outcome.reports!);
      const headings = anchorsOf(evidence);
      const links = [...page.matchAll(/\]\(compatibility\/([^)#]+)\.md#([^)]+)\)/g)];
      expect(links.length).toBeGreaterThan(0);
      expect(links.filter(([, id, anchor]) => id !== server.id || !headings.has(anchor)).map(([l]) => l)).toEqual([]);
      const inner = [...evidence.matchAll(/\]\(#([^)]+)\)/g)].map(([, a]) => a);
      expect(inner.filter((a) => !headings.has(a))).toEqual([]);
      const failed = Object.entries(v.checks)
        .filter(([, o]) => o === 'fail')
        .map(([id]) => id);
      const broken = outcome.reports!.clients.clients!.results.filter((f) => f.outcome === 'fail').map((f) => f.id);
      expect([...failed, ...broken].filter((id) => !evidence.includes(`\n### ${id}\n`))).toEqual([]);
      expect(`${page}${evidence}`).not.toMatch(/127\.0\.0\.1:\d/);
    });
  }
});
