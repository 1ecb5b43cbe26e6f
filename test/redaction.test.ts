// API keys never reach a report. A server may send the key back anywhere: in the ids of its model
// list (which become path labels, path values and requests), in an error message, in a header, in a
// body it cannot even send as JSON. Whatever the key's offset in such a value, so that it straddles
// every cut a text goes through (a suite's short show at 80 characters, an error message at 200,
// V8's quote of broken JSON, an excerpt at 1,200, the engine's bounds), no report format shows it,
// nor any piece of it of four characters or more; split in two words, no run of 8 of its characters
// (test/redaction-split.test.ts: the same through every command, against a mock).
import { fc } from '@fast-check/vitest';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fail, type Check } from '../engine/check.js';
import { limitsFor } from '../engine/http.js';
import { runChecks, type CheckContext } from '../engine/runner.js';
import { REPORTER_NAMES, render } from '../report/index.js';
import { seal } from '../report/boundary.js';
import { exitCodeFor, REPORT_FORMAT_VERSION, summarize, type RunReport } from '../report/report.js';
import { errorText } from '../suites/api.js';
import { readAnswer } from '../suites/answer.js';
import { keys, piecesShown, runsShown } from './support/secrets.js';
import { MIN_KINDS } from '../engine/secret-runs.js';
import { ONLY_A_HANG_MS, within } from './support/machine.js';

/** `offset` characters of filler, the key (split in two words at `split`, if given), then more
 * filler: a value the server sends back. */
const around = (key: string, offset: number, tail: number, split = 0) => `${'x'.repeat(offset)}${split ? `${key.slice(0, split)} ${key.slice(split)}` : key}${'y'.repeat(tail)}`;

/** Echoes the key (the `k` parameter) at `o` characters into every value it sends, split in two
 * words at `s` if given: the ids of its model list, an error message, a header, and a 200 whose body
 * is not JSON. */
let server: ReturnType<typeof createServer>;
let base = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const key = url.searchParams.get('k') ?? '';
    const o = Number(url.searchParams.get('o'));
    const echoed = around(key, o, 300, Number(url.searchParams.get('s')));
    req.resume();
    res.setHeader('x-request-id', echoed);
    if (url.pathname === '/v1/models') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ object: 'list', data: [{ id: `model-${echoed}` }, { id: `m-${key}` }] }));
    } else if (url.pathname === '/refuse') {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no model for key ${echoed}` } }));
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"id": ${echoed}}`);
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A run a reader learns something from: the keys of the property may be padded (engine/secret-runs.ts). */
const informative = (run: string) => new Set(run).size >= MIN_KINDS;

/** A suite's short show of a value (suites/answer.ts): its JSON, cut at 80 characters. */
const show = (v: unknown) => {
  const s = JSON.stringify(v);
  return s.length > 80 ? `${s.slice(0, 80)}…` : s;
};

/** A check over the models the server lists, which puts what the server sent back in its message,
 * its notes and its evidence, through the suites' own readers. */
function echoCheck(key: string, offset: number, split = 0): Check<CheckContext> {
  const q = `k=${encodeURIComponent(key)}&o=${offset}&s=${split}`;
  return {
    id: 'echo.key',
    suite: 'echo',
    title: 'A server that echoes the key',
    section: '5',
    level: 'must',
    paths: {
      model: async (ctx) => {
        const ex = await ctx.send({ method: 'GET', url: `${base}/v1/models?${q}`, headers: { authorization: `Bearer ${key}` } }, 'model list');
        const ids = (JSON.parse(ex.body.toString()) as { data: { id: string }[] }).data.map((m) => m.id);
        return { points: ids.map((id) => ({ value: id, label: id })), note: `tried ${ids.map(show).join(', ')}` };
      },
    },
    async run(ctx, path) {
      const spec = (route: string) => ({ method: 'POST' as const, url: `${base}${route}?${q}`, headers: { authorization: `Bearer ${key}` }, body: JSON.stringify({ model: path.model }) });
      const refused = await ctx.send(spec('/refuse'), `refused for ${path.model}`);
      const garbled = await ctx.send(spec('/garbled'), `garbled for ${path.model}`);
      return fail(`${readAnswer(refused, false).broken.served}; then ${readAnswer(garbled, false).broken.served}; model ${show(path.model)}`, [
        `the server said${errorText(refused)}`,
        `request id ${refused.headers['x-request-id']}`,
      ]);
    },
  };
}

async function reportOf(key: string, offset: number, split = 0): Promise<RunReport> {
  const started = performance.now();
  const { results, notes, requestsSent, redactor } = await runChecks([echoCheck(key, offset, split)], {
    target: { baseUrl: base, siteUrl: base, siteUrlExplicit: true, apiKey: key, models: [], headers: {}, embeddedMock: false },
    limits: limitsFor(ONLY_A_HANG_MS),
    concurrency: 2,
    retry: { maxRetries: 0, maxWaitMs: 0 },
  });
  const options = { strict: false, requireComplete: false };
  return seal(
    {
      formatVersion: REPORT_FORMAT_VERSION,
      tool: { name: 'chat-api-conformance', version: 'test' },
      target: { baseUrl: base, siteUrl: base, embeddedMock: false },
      options,
      startedAt: new Date().toISOString(),
      durationMs: Math.round(performance.now() - started),
      results,
      summary: summarize(results),
      exitCode: exitCodeFor(results, options),
      warnings: [],
      notes,
      requestsSent,
    },
    redactor,
  );
}

describe('a key the server sends back', () => {
  it(
    'at any offset of any value it sends, shows in no report format',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          keys,
          fc.oneof(fc.integer({ min: 0, max: 90 }), fc.integer({ min: 180, max: 220 }), fc.integer({ min: 1100, max: 1300 }), fc.integer({ min: 0, max: 2500 })),
          async (key, offset) => {
            const report = await reportOf(key, offset);
            expect(report.results[0].outcome).toBe('fail');
            for (const format of REPORTER_NAMES) expect(piecesShown(render(format, report), key), `${format}, key at ${offset}`).toEqual([]);
          },
        ),
        { seed: 28, numRuns: 40 },
      );
    },
    within(60_000),
  );

  it(
    'split in two words at any place, at any offset of any value, leaves no run of 8 of it in any report format',
    async () => {
      await fc.assert(
        fc.asyncProperty(keys, fc.oneof(fc.integer({ min: 0, max: 90 }), fc.integer({ min: 180, max: 220 }), fc.integer({ min: 1100, max: 1300 })), fc.nat(), async (key, offset, at) => {
          const report = await reportOf(key, offset, 1 + (at % (key.length - 1)));
          for (const format of REPORTER_NAMES) expect(runsShown(render(format, report), key).filter(informative), `${format}, key at ${offset}`).toEqual([]);
        }),
        { seed: 41, numRuns: 30 },
      );
    },
    within(60_000),
  );

  it('still shows where it stood, and the command that replays the request names its variable', async () => {
    const key = 'sk-0123456789BFGHIJKLMNOPQ';
    const report = await reportOf(key, 0);
    const r = report.results[0];
    // The mark of the cut is within the label's bound of 200.
    const mark = `… [${6 + key.length + 300} characters in all]`;
    expect(r.paths!.map((p) => p.label)).toEqual([`model-[REDACTED]${'y'.repeat(200 - 'model-[REDACTED]'.length - mark.length)}${mark}`, 'm-[REDACTED]']);
    expect(r.paths!.map((p) => p.path.model)).toEqual([expect.stringMatching(/^model-\[REDACTED\]y+… \[/), 'm-[REDACTED]']);
    expect(report.notes?.[0]).toMatch(/^tried "model-\[REDACTED\]y+…, "m-\[REDACTED\]"$/);
    expect(r.evidence.some((e) => e.reproduce?.includes('$CONFORMANCE_API_KEY'))).toBe(true);
    expect(r.evidence.some((e) => e.headers?.['x-request-id']?.startsWith('[REDACTED]'))).toBe(true);
  });
});
