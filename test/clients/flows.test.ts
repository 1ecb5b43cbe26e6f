// The flows themselves: the correct mock passes every flow of every client on every model (the
// reasoning model, which spends part of max_tokens thinking, included); each flow rests on checks of
// the registry, and takes its level from them.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIENTS, FLOWS } from '../../clients/index.js';
import { levelOf, unknownRests } from '../../clients/levels.js';
import { CHECKS } from '../../suites/index.js';
import { flowsAgainst, MODELS, notPassing } from './support.js';
import { browserRuns } from '../support/chromium.js';
import { createMock } from '../../mock/core/handle.js';
import { within } from '../support/machine.js';

// The flows of every client on every model: on a busy machine more than vitest's default.
describe('the client flows', { timeout: within(240_000) }, () => {
  it('the correct mock passes every flow of every client, on every model', async () => {
    const flows = await flowsAgainst();
    expect(notPassing(flows)).toEqual([]);
    // The browser client where Chromium is installed (test/browser/clients.test.ts holds it apart).
    const offered = CLIENTS.filter((c) => c.name !== 'openai-browser' || browserRuns).flatMap((c) => c.flows.map((f) => `${c.name}.${f.name}`));
    expect(flows.map((f) => f.id).sort()).toEqual(offered.sort());
    for (const f of flows)
      expect(
        f.paths.map((p) => p.label),
        f.id,
      ).toEqual(f.flow === 'models' ? ['all'] : [...MODELS]);
  });

  it("leaves a flow whose stream the kit cut at its idle limit not-tested, naming --idle-timeout: the kit's limit is no failure of the server", async () => {
    // A pause that outlasts the idle limit and the test (a stream that never answers whole): the kit
    // cuts it, whatever the machine's pace.
    const flows = await flowsAgainst(createMock(undefined, { faults: ['stream-pause; ms=600000'] }), { clients: ['openai'], models: ['mock-chat-1'], idleTimeoutMs: 100 });
    const failed = flows.filter((f) => f.outcome === 'fail').map((f) => `${f.id}: ${f.message}`);
    expect(failed).toEqual([]);
    const cut = flows.filter((f) => f.outcome === 'not-tested');
    expect(cut.map((f) => f.id)).toContain('openai.stream');
    for (const f of cut) expect(f.message).toMatch(/server silent for 100 ms in the body \(--idle-timeout\); raise --idle-timeout to judge it/);
  });

  it('each client runs every flow or says why it does not offer it', () => {
    for (const c of CLIENTS) {
      const covered = [...c.flows.map((f) => f.name), ...Object.keys(c.absent)];
      expect(covered.sort(), c.name).toEqual(FLOWS.map((f) => f.name).sort());
    }
  });

  it('each flow rests on checks of the registry, and is a must where one of them is', () => {
    const must = new Set(CHECKS.filter((c) => c.level === 'must').map((c) => c.id));
    for (const c of CLIENTS)
      for (const f of c.flows) {
        expect(unknownRests(f.rests), `${c.name}.${f.name}`).toEqual([]);
        expect(levelOf(f.rests), `${c.name}.${f.name}`).toBe(f.rests.some((id) => must.has(id)) ? 'must' : 'should');
      }
  });

  it('docs/clients.md says what each flow does in each client and the checks it rests on, as the code declares them', () => {
    const page = readFileSync(new URL('../../docs/clients.md', import.meta.url), 'utf8');
    const rows = new Map(
      page
        .split('\n')
        .filter((l) => l.startsWith('| '))
        .map((l) => [l.split('|')[1].trim(), l] as const),
    );
    for (const c of CLIENTS)
      for (const f of c.flows) {
        expect(page, `${c.name}.${f.name}: does`).toContain(f.does.replace(/\|/g, '\\|'));
        const cells =
          rows
            .get(f.name)
            ?.split('|')
            .map((x) => x.trim()) ?? [];
        const cell = cells[CLIENTS.indexOf(c) + 2] ?? '';
        // The browser's flows rest on their Node twins' checks (a test holds them equal): its column says so.
        const twin = c.name === 'openai-browser' ? CLIENTS.find((n) => n.name === 'openai')!.flows.find((n) => n.name === f.name) : undefined;
        expect(cell, `${c.name}.${f.name}: rests`).toBe(twin?.rests === f.rests ? 'as openai' : `${levelOf(f.rests)}: ${f.rests.map((r) => `\`${r}\``).join(', ')}`);
      }
  });
});
