// Pacing: a stream's frames carry the time to first token, then tokens / tokens_per_second; jitter
// varies pauses within its fraction and is the same for the same request; keep-alive comments fill
// a long wait; chunk_tokens groups tokens; a non-streamed reply waits as long as the whole stream.
// `conformance mock` types at a human pace by default (--pace instant: at once), where the in-process
// mock answers at once.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { DEFAULT_CONFIG } from '../../mock/config/default.js';
import { interceptMock } from '../../mock/intercept.js';
import { PACES, withPace } from '../../mock/core/timing.js';
import type { Scenario, Timing } from '../../mock/config/types.js';
import { createMock } from '../../mock/core/handle.js';
import type { Frame } from '../../mock/core/types.js';
import { countTokens } from '../../mock/core/tokens.js';
import { chat, chatRequest, contentDeltas, frames, json, scenarioMock, user, withConfig, serverPerTest, KEY, MODEL, CHAT } from './helpers.js';
import { within } from '../support/machine.js';

const BIN = fileURLToPath(new URL('../../dist/bin/conformance.js', import.meta.url));

const TEXT = 'one two three four five six seven'; // seven tokens
const scripted = (timing?: Timing): Scenario[] => [{ name: 'text', match: {}, reply: { text: TEXT }, ...(timing ? { timing } : {}) }];
const paced = (timing: Timing) => scenarioMock(scripted(), { timing });
const streamed = (mock = paced({}), extra = {}) => frames(chat(mock, { ...user('go'), stream: true, ...extra }));

const isData = (f: Frame) => 'bytes' in f && String(f.bytes).startsWith('data: ');
const isKeepAlive = (f: Frame) => 'bytes' in f && String(f.bytes).startsWith(':');
const total = (fs: Frame[]) => fs.reduce((n, f) => n + f.delayMs, 0);
/** Pauses before each content delta. */
const contentPauses = (fs: Frame[]) => fs.filter((f) => isData(f) && /"content":"[^"]/.test(String((f as { bytes: string }).bytes))).map((f) => f.delayMs);

describe('pacing', () => {
  it('with no timing, nothing waits', () => {
    const fs = streamed();
    expect(total(fs)).toBe(0);
    expect(contentDeltas(fs).join('')).toBe(TEXT);
  });

  it('the first frame waits ttft; each token then 1/tokens_per_second', () => {
    expect(countTokens(TEXT)).toBe(7);
    const fs = streamed(paced({ ttft_ms: 300, tokens_per_second: 50 }));
    expect(fs[0].delayMs).toBe(300);
    expect(isData(fs[0])).toBe(true);
    expect(contentPauses(fs)).toEqual(Array(7).fill(20));
    expect(total(fs)).toBe(300 + 7 * 20);
  });

  it('jitter varies each pause within ±fraction, the same way for the same request', () => {
    const timing = { ttft_ms: 200, tokens_per_second: 10, jitter: 0.5 };
    const fs = streamed(paced(timing));
    const pauses = contentPauses(fs);
    expect(fs[0].delayMs).toBeGreaterThanOrEqual(100);
    expect(fs[0].delayMs).toBeLessThanOrEqual(300);
    for (const p of pauses) {
      expect(p).toBeGreaterThanOrEqual(50);
      expect(p).toBeLessThanOrEqual(150);
    }
    expect(new Set(pauses).size).toBeGreaterThan(1);
    // The same request: the same pauses, on a fresh mock and on this one again.
    const again = paced(timing);
    expect(streamed(again).map((f) => f.delayMs)).toEqual(fs.map((f) => f.delayMs));
    expect(streamed(again).map((f) => f.delayMs)).toEqual(fs.map((f) => f.delayMs));
    // Another request: other pauses.
    expect(frames(chat(again, { ...user('go on'), stream: true })).map((f) => f.delayMs)).not.toEqual(fs.map((f) => f.delayMs));
  });

  it('keep-alive comments fill a long wait for the first token', () => {
    const fs = streamed(paced({ ttft_ms: 350, keepalive_ms: 100 }));
    const first = fs.findIndex(isData);
    expect(first).toBe(3);
    expect(fs.slice(0, 3).every(isKeepAlive)).toBe(true);
    expect(fs.slice(0, 3).map((f) => (f as { bytes: string }).bytes)).toEqual(Array(3).fill(': keep-alive\n\n'));
    expect(total(fs.slice(0, first + 1))).toBe(350);
    expect(fs.slice(first).some(isKeepAlive)).toBe(false);
    // A short wait needs none.
    expect(streamed(paced({ ttft_ms: 50, keepalive_ms: 100 })).some(isKeepAlive)).toBe(false);
  });

  it('chunk_tokens groups tokens per chunk, paced by the tokens they carry', () => {
    const fs = streamed(paced({ tokens_per_second: 100, chunk_tokens: 3 }));
    const deltas = contentDeltas(fs);
    expect(deltas).toEqual(['one two three', ' four five six', ' seven']);
    expect(contentPauses(fs)).toEqual([30, 30, 10]);
  });

  it('a model’s timing is over the configuration’s, a scenario’s over both', () => {
    const models = withConfig({}).models.map((m) => (m.id === 'mock-chat-1' ? { ...m, timing: { ttft_ms: 70 } } : m));
    const byModel = createMock(withConfig({ models, scenarios: scripted(), timing: { ttft_ms: 10, tokens_per_second: 100 } }));
    const fs = streamed(byModel);
    expect(fs[0].delayMs).toBe(70);
    expect(contentPauses(fs)).toEqual(Array(7).fill(10));
    expect(byModel.journal.list()[0].timing).toEqual({ ttft_ms: 70, tokens_per_second: 100 });
    const byScenario = createMock(withConfig({ models, scenarios: scripted({ ttft_ms: 5 }), timing: { tokens_per_second: 100 } }));
    expect(streamed(byScenario)[0].delayMs).toBe(5);
  });

  it('a non-streamed reply waits ttft plus its tokens at the pace', () => {
    const r = chat(paced({ ttft_ms: 100, tokens_per_second: 70 }), user('go'));
    expect('delayMs' in r && r.delayMs).toBe(100 + 100);
    expect(json(r).choices[0].message.content).toBe(TEXT);
    expect('delayMs' in chat(paced({}), user('go'))).toBe(false);
  });

  it('jitter varies a non-streamed reply too, within ±fraction, the same way for the same request', () => {
    const mock = paced({ ttft_ms: 100, tokens_per_second: 70, jitter: 0.5 });
    const delays = ['go', 'go on', 'go further', 'and on'].map((t) => chat(mock, user(t))).map((r) => ('delayMs' in r ? r.delayMs! : 0));
    for (const d of delays) {
      expect(d).toBeGreaterThanOrEqual(50);
      expect(d).toBeLessThanOrEqual(450);
    }
    expect(new Set(delays).size).toBeGreaterThan(1);
    const again = chat(paced({ ttft_ms: 100, tokens_per_second: 70, jitter: 0.5 }), user('go'));
    expect('delayMs' in again && again.delayMs).toBe(delays[0]);
  });
});

describe('pacing over HTTP', () => {
  const serve = serverPerTest();

  // How close to the pace the waits come is a speed figure: bench/load.ts measures it (ttft p50
  // within 5%). Here, that the pauses are really waited: a timer never fires early.
  it('a paced stream waits its first token and then its tokens, and a paced body as long, before it ends', async () => {
    const server = await serve({ mock: paced({ ttft_ms: 150, tokens_per_second: 100 }) });
    const req = chatRequest({ ...user('go'), stream: true });
    const t0 = performance.now();
    const res = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers: req.headers as Record<string, string>, body: req.body as string });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    let firstData: number | undefined;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (firstData === undefined && text.includes('data: ')) firstData = performance.now() - t0;
    }
    const elapsed = performance.now() - t0;
    expect(firstData).toBeGreaterThanOrEqual(135);
    expect(elapsed).toBeGreaterThanOrEqual(150 + 70 - 15);
    expect(text).toContain('data: [DONE]');

    const t1 = performance.now();
    const body = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: req.headers as Record<string, string>,
      body: JSON.stringify({ ...JSON.parse(req.body as string), stream: false }),
    });
    expect((await (body.json() as Promise<any>)).choices[0].message.content).toBe(TEXT);
    const waited = performance.now() - t1;
    expect(waited).toBeGreaterThanOrEqual(220 - 15);
  });
});

/** Milliseconds from sending a streamed chat to its first content delta, and to its end; with the
 * number of content deltas. */
async function timeToFirstToken(baseUrl: string): Promise<{ first: number; total: number; deltas: number }> {
  const t0 = performance.now();
  const res = await fetch(`${baseUrl}${CHAT}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, stream: true, ...user('Say hello.') }),
  });
  let first = Number.NaN;
  let deltas = 0;
  let text = '';
  const decoder = new TextDecoder();
  for await (const piece of res.body as unknown as AsyncIterable<Uint8Array>) {
    text += decoder.decode(piece, { stream: true });
    const found = (text.match(/"delta":\{"content":"[^"]/g) ?? []).length;
    if (found && Number.isNaN(first)) first = performance.now() - t0;
    deltas = found;
  }
  return { first, total: performance.now() - t0, deltas };
}

/** `conformance mock ARGS --port 0`: its URL and banner once it listens. */
function startCli(args: string[]): Promise<{ url: string; banner: string; stop(): void }> {
  const child = spawn(process.execPath, [BIN, 'mock', ...args, '--port', '0', '--no-dashboard'], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b;
      if (out.includes('keys (test values')) resolve({ url: /mock listening on (\S+)/.exec(out)![1], banner: out, stop: () => child.kill() });
    });
    child.once('exit', (code) => reject(new Error(`conformance mock exited ${code}: ${out}`)));
  });
}

describe('the pace of conformance mock', () => {
  const { ttft_ms, tokens_per_second, jitter } = PACES.human;
  /** The least a paced first token waits (the jitter shortens it by at most its fraction). */
  const least = ttft_ms * (1 - jitter);

  it(
    'types at a human pace by default and says how to change it; --pace instant answers over a configuration that waits ten minutes; the in-process mock paces nothing',
    async () => {
      // --pace instant over a first token of ten minutes: a pause left in would hang the test, where
      // a short one would only be slower, as a busy machine is.
      const dir = mkdtempSync(join(tmpdir(), 'pace-'));
      onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
      writeFileSync(join(dir, 'slow.json'), JSON.stringify({ timing: { ttft_ms: 600_000 } }));
      const [paced, instant] = await Promise.all([startCli([]), startCli(['--config', join(dir, 'slow.json'), '--pace', 'instant'])]);
      const inProcess = interceptMock();
      // Run when the test ends, at its timeout too: no mock is left running after such a hang.
      onTestFinished(() => (paced.stop(), instant.stop(), inProcess.dispose()));
      expect(paced.banner).toContain(`pace of generated replies: first token after ${ttft_ms} ms, then ${tokens_per_second} tokens/s, each pause ±${jitter * 100}%; --pace instant answers at once`);
      expect(instant.banner).toContain('pace of generated replies: at once; --pace human types as a hosted model does');
      const [human, asIs, here] = [await timeToFirstToken(paced.url), await timeToFirstToken(instant.url), await timeToFirstToken(inProcess.baseUrl)];
      // A visible typing effect: a few hundred ms to the first token, then tens of tokens a second.
      expect(human.first).toBeGreaterThanOrEqual(least);
      expect(human.deltas).toBeGreaterThan(3);
      expect(human.total - human.first).toBeGreaterThanOrEqual(((human.deltas - 1) / tokens_per_second) * 1000 * (1 - jitter));
      // The same reply, with the configuration's pause taken away.
      expect(asIs.deltas).toBe(human.deltas);
      // The same reply in-process, where no answer was given a pace: none waited.
      expect(here.deltas).toBe(human.deltas);
      expect(inProcess.mock.journal.list().map((e) => e.timing)).toEqual([null]);
    },
    within(30_000),
  );

  it('a configuration that sets its own timing keeps it; --pace replaces it', () => {
    const own = { ...DEFAULT_CONFIG, timing: { ttft_ms: 5 } };
    expect(withPace(DEFAULT_CONFIG, undefined).timing).toEqual(PACES.human);
    expect(withPace(own, undefined).timing).toEqual({ ttft_ms: 5 });
    expect(withPace(own, 'instant').timing).toBeUndefined();
    expect(withPace(own, 'human').timing).toEqual(PACES.human);
    expect(createMock().config.timing).toBeUndefined();
  });
});
