// Record and replay, end to end: one mock records from another (streamed and not, tools included)
// through the official SDK, then the recordings are replayed with the upstream gone.
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, streamText } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../mock/config/default.js';
import { loadConfigFile } from '../../mock/config/load.js';
import { createMock } from '../../mock/core/handle.js';
import { startMockServer, type MockServer } from '../../mock/http.js';
import { fixtureName } from '../../mock/record/fixtures.js';
import { startRecorder } from '../../mock/record/server.js';
import { makeCertificates } from '../tls/certificates.js';
import { Agent, fetch as undiciFetch } from 'undici';
import { ONLY_A_HANG_MS, within } from '../support/machine.js';

const UPSTREAM_KEY = DEFAULT_CONFIG.keys[0].key;
const CLIENT_KEY = 'sk-client-side-test-key-0042';
const ORG_SECRET = 'org-secret-value-7731';
const COOKIE_SECRET = 'cookie-session-value-5519';
const SECRET_PROMPT = `My org is ${ORG_SECRET}, my session ${COOKIE_SECRET} and my key ${CLIENT_KEY}.`;
const MODEL = 'mock-chat-1';
const WEATHER: OpenAI.ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

const client = (baseURL: string, testId?: string) =>
  new OpenAI({
    apiKey: CLIENT_KEY,
    baseURL: `${baseURL}/v1`,
    maxRetries: 0,
    timeout: ONLY_A_HANG_MS,
    defaultHeaders: { ...(testId ? { 'x-test-id': testId } : {}), 'x-org-secret': ORG_SECRET, cookie: `session=${COOKIE_SECRET}` },
  });

const TEN_MINUTES_MS = 600_000;

/** The recordings of `dir` (default.yaml) made to wait 10 minutes before each answer: their delays now. */
function lengthenDelays(dir: string): number[][] {
  const file = join(dir, 'default.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace(/delays_ms: \[[^\]]*\]/g, `delays_ms: [ ${TEN_MINUTES_MS} ]`));
  return loadConfigFile(file).scenarios!.map((s) => s.reply.delays_ms!);
}

/** What a test's conversation saw: the same calls, made against the recorder and then the replay. */
async function conversation(c: OpenAI) {
  const plain = await c.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hello there.' }] });
  const deltas: string[] = [];
  let usage: OpenAI.CompletionUsage | null | undefined;
  const stream = await c.chat.completions.create({ model: MODEL, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Tell me a long story.' }] });
  for await (const chunk of stream) {
    const d = chunk.choices[0]?.delta?.content;
    if (d) deltas.push(d);
    if (chunk.usage) usage = chunk.usage;
  }
  const ask: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is the weather in Paris?' }];
  const call = await c.chat.completions.create({ model: MODEL, messages: ask, tools: [WEATHER] });
  const toolCall = call.choices[0].message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
  const next = await c.chat.completions.create({
    model: MODEL,
    tools: [WEATHER],
    messages: [...ask, call.choices[0].message, { role: 'tool', tool_call_id: toolCall.id, content: '{"temp_c": 21}' }],
  });
  const streamedCall = await c.chat.completions.create({ model: MODEL, stream: true, messages: ask, tools: [WEATHER] });
  let streamedArgs = '';
  let streamedName = '';
  for await (const chunk of streamedCall) {
    for (const t of chunk.choices[0]?.delta?.tool_calls ?? []) {
      streamedName += t.function?.name ?? '';
      streamedArgs += t.function?.arguments ?? '';
    }
  }
  const models = (await c.models.list()).data.map((m) => m.id);
  return {
    plain: { text: plain.choices[0].message.content, usage: plain.usage, finish: plain.choices[0].finish_reason },
    stream: { deltas, usage },
    call: { id: toolCall.id, name: toolCall.function.name, args: toolCall.function.arguments, finish: call.choices[0].finish_reason },
    next: next.choices[0].message.content,
    streamedCall: { name: streamedName, args: streamedArgs },
    models,
  };
}

describe('record and replay', () => {
  let dir: string;
  let upstream: MockServer;
  let recorded: Awaited<ReturnType<typeof conversation>>;
  let secretAnswer: string;
  let cutAnswer: string;
  let catalogSeen: unknown;
  const logs: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'conformance-record-'));
    upstream = await startMockServer({ mock: createMock(DEFAULT_CONFIG) });
    const recorder = await startRecorder({ dir, mode: 'record', upstream: upstream.url, upstreamKey: UPSTREAM_KEY, redact: ['x-org-secret'], log: (l) => logs.push(l) });
    try {
      recorded = await conversation(client(recorder.url, 'weather flow'));
      // The same prompt under another test id goes to another file.
      await client(recorder.url).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hello there.' }] });
      // The public catalog, as a model picker reads it.
      catalogSeen = await (await fetch(`${recorder.url}/models.json`, { headers: { 'x-test-id': 'weather flow' } })).json();
      // The same conversation asked with a limit: its own recording.
      cutAnswer = (await client(recorder.url, 'params').chat.completions.create({ model: MODEL, max_tokens: 3, messages: [{ role: 'user', content: 'Hello there.' }] })).choices[0].message.content!;
      // Secrets said in the conversation itself: redacted in the recording.
      secretAnswer = (await client(recorder.url, 'secrets').chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: SECRET_PROMPT }] })).choices[0].message.content!;
    } finally {
      await recorder.close();
    }
    await upstream.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the client gets the upstream answers as they stream, and each test has its file', () => {
    expect(recorded.plain.text).toBeTruthy();
    expect(recorded.stream.deltas.length).toBeGreaterThan(20);
    expect(recorded.call.name).toBe('get_weather');
    expect(recorded.models).toContain(MODEL);
    expect(readdirSync(dir).sort()).toEqual([`${fixtureName('weather flow')}.yaml`, 'default.yaml', 'params.yaml', 'secrets.yaml'].sort());
    expect(logs.filter((l) => l.startsWith('recorded '))).toHaveLength(10);
  });

  it('every file is a valid mock configuration: matches on the conversation, the reply, the pace', () => {
    const config = loadConfigFile(join(dir, `${fixtureName('weather flow')}.yaml`));
    expect(config.scenarios).toHaveLength(5);
    const streamed = config.scenarios!.find((s) => s.match.stream && !s.reply.tool_calls)!;
    expect(streamed.match.messages).toEqual([{ role: 'user', content: 'Tell me a long story.' }]);
    expect(streamed.reply.chunks).toEqual(recorded.stream.deltas);
    expect(streamed.reply.delays_ms).toHaveLength(recorded.stream.deltas.length);
    expect(streamed.reply.usage).toMatchObject({ total_tokens: recorded.stream.usage!.total_tokens });
    expect(streamed.recorded).toMatchObject({ upstream: upstream.url, status: 200 });
    expect(streamed.recorded!.drift).toBeUndefined();
    const call = config.scenarios!.find((s) => !s.match.stream && s.reply.tool_calls)!;
    expect(call.reply.tool_calls).toEqual([{ name: 'get_weather', arguments: recorded.call.args, id: recorded.call.id }]);
    expect(call.match.tools).toEqual(['get_weather']);
  });

  it('no secret reaches the disk: not the upstream key, not the client key, not a cookie, not a --redact header', () => {
    for (const f of readdirSync(dir)) {
      const text = readFileSync(join(dir, f), 'utf8');
      for (const secret of [UPSTREAM_KEY, CLIENT_KEY, ORG_SECRET, COOKIE_SECRET]) expect(text).not.toContain(secret);
    }
    expect(logs.join('\n')).not.toContain(UPSTREAM_KEY);
    // The positive control: the conversation that said them was recorded, with each one replaced.
    const said = loadConfigFile(join(dir, 'secrets.yaml')).scenarios![0].match.messages![0].content;
    expect(said).toBe('My org is [REDACTED], my session [REDACTED] and my key [REDACTED].');
  });

  it('a replay redacts a request the same way before matching it, so the conversation that said a secret still matches', async () => {
    const replay = await startRecorder({ dir, mode: 'replay', noDelays: true, redact: ['x-org-secret'] });
    try {
      const again = await client(replay.url, 'secrets').chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: SECRET_PROMPT }] });
      expect(again.choices[0].message.content).toBe(secretAnswer);
    } finally {
      await replay.close();
    }
  });

  it('replayed through the official SDK with the upstream gone: the same answers, the same chunks', async () => {
    const replay = await startRecorder({ dir, mode: 'replay', noDelays: true });
    try {
      const again = await conversation(client(replay.url, 'weather flow'));
      expect(again.plain.text).toBe(recorded.plain.text);
      expect(again.plain.usage).toEqual(recorded.plain.usage);
      expect(again.stream.deltas).toEqual(recorded.stream.deltas);
      expect(again.stream.usage).toEqual(recorded.stream.usage);
      expect(again.call).toEqual(recorded.call);
      expect(again.next).toBe(recorded.next);
      expect(again.streamedCall).toEqual(recorded.streamedCall);
      // A recorded stream cut inside its characters (x-mock-content: split=bytes) reads the same.
      let split = '';
      const c = client(replay.url, 'weather flow');
      const pieces = await c.chat.completions.create(
        { model: MODEL, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Tell me a long story.' }] },
        { headers: { 'x-mock-content': 'split=bytes' } },
      );
      for await (const chunk of pieces) split += chunk.choices[0]?.delta?.content ?? '';
      expect(split).toBe(recorded.stream.deltas.join(''));
      // And it was cut: many more reads than events.
      const reads = async (headers: Record<string, string>) => {
        const r = await fetch(`${replay.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${CLIENT_KEY}`, 'content-type': 'application/json', 'x-test-id': 'weather flow', ...headers },
          body: JSON.stringify({ model: MODEL, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Tell me a long story.' }] }),
        });
        let n = 0;
        for await (const _ of r.body!) n++;
        return n;
      };
      expect(await reads({ 'x-mock-content': 'split=bytes' })).toBeGreaterThan(2 * (await reads({})));
      expect(again.models).toEqual(recorded.models);
      // The catalog as the upstream served it, not one derived from placeholder models.
      expect(await (await fetch(`${replay.url}/models.json`, { headers: { 'x-test-id': 'weather flow' } })).json()).toEqual(catalogSeen);
      expect((catalogSeen as { data: unknown[] }).data.length).toBe(DEFAULT_CONFIG.models.length);
    } finally {
      await replay.close();
    }
  });

  it('replayed through the AI SDK: the recordings made with another client answer it too', async () => {
    const replay = await startRecorder({ dir, mode: 'replay', noDelays: true });
    try {
      const provider = createOpenAICompatible({ name: 'replay', baseURL: `${replay.url}/v1`, apiKey: CLIENT_KEY, headers: { 'x-test-id': 'weather flow' }, includeUsage: true });
      const plain = await generateText({ model: provider(MODEL), prompt: 'Hello there.', maxRetries: 0 });
      expect(plain.text).toBe(recorded.plain.text);
      const streamed = streamText({ model: provider(MODEL), prompt: 'Tell me a long story.', maxRetries: 0 });
      expect(await streamed.text).toBe(recorded.stream.deltas.join(''));
      expect((await streamed.usage).outputTokens).toBe(recorded.stream.usage!.completion_tokens);
    } finally {
      await replay.close();
    }
  });

  it('the parameters that shape an answer are part of the match: the same conversation with another limit is another request', async () => {
    const replay = await startRecorder({ dir, mode: 'replay', noDelays: true });
    try {
      const c = client(replay.url, 'params');
      const ask = (extra: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming>) => c.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hello there.' }], ...extra });
      expect((await ask({ max_tokens: 3 })).choices[0].message.content).toBe(cutAnswer);
      for (const extra of [{ max_tokens: 4 }, {}, { max_tokens: 3, temperature: 0 }]) {
        const err = await ask(extra).catch((e: unknown) => e);
        expect((err as Error).message).toMatch(/which differs in parameters\.(max_tokens|temperature)/);
      }
    } finally {
      await replay.close();
    }
  });

  it('a request with no recording is refused naming the nearest recording and what differs', async () => {
    const replay = await startRecorder({ dir, mode: 'replay' });
    try {
      const c = client(replay.url, 'weather flow');
      const err = await c.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hello there!' }] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      expect((err as Error).message).toMatch(/closest is "recorded 1: mock-chat-1, "Hello there\."", which differs in messages\[0\] \(user\)/);
      const none = await client(replay.url, 'never recorded')
        .chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hello there.' }] })
        .catch((e: unknown) => e);
      expect((none as Error).message).toMatch(/No recordings for test "never recorded"/);
    } finally {
      await replay.close();
    }
  });

  it('a replay takes faults like the mock does (x-mock-fault, --fault) and serves https with --tls-cert', async () => {
    const certs = makeCertificates();
    const replay = await startRecorder({ dir, mode: 'replay', noDelays: true, tls: { cert: readFileSync(certs.server.cert, 'utf8'), key: readFileSync(certs.server.key, 'utf8') } });
    try {
      expect(replay.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const dispatcher = new Agent({ connect: { ca: readFileSync(certs.ca.cert, 'utf8') } });
      const ask = (headers: Record<string, string> = {}) =>
        undiciFetch(`${replay.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${CLIENT_KEY}`, 'content-type': 'application/json', 'x-test-id': 'weather flow', ...headers },
          body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Hello there.' }] }),
          dispatcher,
        });
      const limited = await ask({ 'x-mock-fault': 'rate-limited; retry_after_ms=10' });
      expect(limited.status).toBe(429);
      // One mock serves the file across requests: `times` counts, so a retry gets through.
      const once = 'rate-limited; retry_after_ms=10; times=1';
      expect((await ask({ 'x-mock-fault': once })).status).toBe(429);
      expect((await ask({ 'x-mock-fault': once })).status).toBe(200);
      const ok = await ask();
      expect(ok.headers.get('x-mock-recorded-drift')).toBeNull();
      expect(((await ok.json()) as { choices: { message: { content: string } }[] }).choices[0].message.content).toBe(recorded.plain.text);
    } finally {
      await replay.close();
      rmSync(certs.dir, { recursive: true, force: true });
    }
    await expect(startRecorder({ dir, mode: 'replay', faults: ['no-such-fault'] })).rejects.toThrow(/no-such-fault/);
  });

  it('replays at the recorded pace unless told not to: with noDelays, a recorded 10 minutes is not waited', async () => {
    const paced = await startMockServer({ mock: createMock({ ...DEFAULT_CONFIG, timing: { ttft_ms: 600, tokens_per_second: 0 } }) });
    const slowDir = mkdtempSync(join(tmpdir(), 'conformance-record-'));
    try {
      const rec = await startRecorder({ dir: slowDir, mode: 'record', upstream: paced.url, upstreamKey: UPSTREAM_KEY });
      await client(rec.url).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hi.' }] });
      await rec.close();
      const config = loadConfigFile(join(slowDir, 'default.yaml'));
      expect(config.scenarios![0].reply.delays_ms![0]).toBeGreaterThanOrEqual(250);
      // Kept: a busy machine slows an answer, never speeds one up.
      const replay = await startRecorder({ dir: slowDir, mode: 'replay' });
      const started = performance.now();
      await client(replay.url).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hi.' }] });
      const took = performance.now() - started;
      await replay.close();
      expect(took).toBeGreaterThanOrEqual(550);
      // Skipped: a pace kept by mistake would hold the answer past the client's timeout.
      expect(lengthenDelays(slowDir)).toEqual([[TEN_MINUTES_MS]]);
      const fast = await startRecorder({ dir: slowDir, mode: 'replay', noDelays: true });
      try {
        const answer = await client(fast.url).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hi.' }] }, { timeout: within(15_000) });
        expect(answer.choices[0].message.content).toBeTruthy();
      } finally {
        await fast.close();
      }
    } finally {
      await paced.close();
      rmSync(slowDir, { recursive: true, force: true });
    }
  });

  it('marks drift: an upstream that breaks the document is recorded with each violation and its section', async () => {
    // finish_reason "eos" and no usage: two departures from 2.3.
    const body = JSON.stringify({ id: 'c1', object: 'chat.completion', created: 1, model: MODEL, choices: [{ index: 0, message: { role: 'assistant', content: 'Hi!' }, finish_reason: 'eos' }] });
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const broken = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
    const driftDir = mkdtempSync(join(tmpdir(), 'conformance-record-'));
    const lines: string[] = [];
    try {
      const rec = await startRecorder({ dir: driftDir, mode: 'record', upstream: broken.url, upstreamKey: UPSTREAM_KEY, log: (l) => lines.push(l) });
      const r = await fetch(`${rec.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${CLIENT_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Hi.' }] }),
      });
      expect(((await r.json()) as { choices: { finish_reason: string }[] }).choices[0].finish_reason).toBe('eos');
      await rec.close();
      const drift = loadConfigFile(join(driftDir, 'default.yaml')).scenarios![0].recorded!.drift!;
      // Replayed, it says so on every answer (the file holds the rest).
      const replay = await startRecorder({ dir: driftDir, mode: 'replay' });
      const again = await fetch(`${replay.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${CLIENT_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Hi.' }] }),
      });
      await replay.close();
      expect(again.headers.get('x-mock-recorded-drift')).toBe(`${drift.length}; ${drift[0]}`);
      expect(drift.join('\n')).toMatch(/finish_reason.*\[2\.3/);
      expect(drift.join('\n')).toMatch(/usage/);
      expect(lines.some((l) => /drift: .*finish_reason/.test(l))).toBe(true);
    } finally {
      await broken.close();
      rmSync(driftDir, { recursive: true, force: true });
    }
  });

  it('an upstream that compresses its answers anyway: the client gets them as sent, the recording what they say', async () => {
    const gzipping = await startMockServer({ mock: createMock(DEFAULT_CONFIG, { faults: ['legal-gzip'] }) });
    const gzDir = mkdtempSync(join(tmpdir(), 'conformance-record-'));
    try {
      const rec = await startRecorder({ dir: gzDir, mode: 'record', upstream: gzipping.url, upstreamKey: UPSTREAM_KEY });
      const c = client(rec.url);
      const plain = await c.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hi.' }] });
      let streamed = '';
      for await (const chunk of await c.chat.completions.create({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'Hi there.' }] })) streamed += chunk.choices[0]?.delta?.content ?? '';
      await rec.close();
      const [json, stream] = loadConfigFile(join(gzDir, 'default.yaml')).scenarios!;
      expect(json.reply.text).toBe(plain.choices[0].message.content);
      expect(json.recorded!.drift).toBeUndefined();
      expect(stream.reply.chunks!.join('')).toBe(streamed);
      expect(stream.recorded!.drift).toBeUndefined();
    } finally {
      await gzipping.close();
      rmSync(gzDir, { recursive: true, force: true });
    }
  });

  it('an upstream that cannot be reached is a 502 JSON error naming why, and nothing is recorded', async () => {
    const deadDir = mkdtempSync(join(tmpdir(), 'conformance-record-'));
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    // Nothing listens there: the upstream never answers.
    const rec = await startRecorder({ dir: deadDir, mode: 'record', upstream: `http://127.0.0.1:${port}`, upstreamKey: UPSTREAM_KEY, timeoutMs: 2_000 });
    try {
      const r = await fetch(`${rec.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${CLIENT_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Hi.' }] }),
      });
      expect(r.status).toBe(502);
      const body = (await r.json()) as { error: { message: string; code: string } };
      expect(body.error.code).toBe('recorder_error');
      expect(body.error.message).toMatch(/ECONNREFUSED/);
      expect(body.error.message).not.toContain(UPSTREAM_KEY);
      expect(readdirSync(deadDir)).toEqual([]);
    } finally {
      await rec.close();
      rmSync(deadDir, { recursive: true, force: true });
    }
  });

  it('with --fallback upstream, what has no recording is recorded on the spot and then replayed', async () => {
    const live = await startMockServer({ mock: createMock(DEFAULT_CONFIG) });
    const fbDir = mkdtempSync(join(tmpdir(), 'conformance-record-'));
    try {
      const replay = await startRecorder({ dir: fbDir, mode: 'replay', fallback: true, upstream: live.url, upstreamKey: UPSTREAM_KEY });
      const ask = { model: MODEL, messages: [{ role: 'user' as const, content: 'Something new.' }] };
      const first = await client(replay.url, 'fb').chat.completions.create(ask);
      await live.close();
      const second = await client(replay.url, 'fb').chat.completions.create(ask);
      expect(second.choices[0].message.content).toBe(first.choices[0].message.content);
      await replay.close();
      expect(readFileSync(join(fbDir, 'fb.yaml'), 'utf8')).not.toContain(UPSTREAM_KEY);
    } finally {
      await live.close().catch(() => {});
      rmSync(fbDir, { recursive: true, force: true });
    }
  });
});

describe('conformance mock --record / --replay on the command line', () => {
  const BIN = fileURLToPath(new URL('../../dist/bin/conformance.js', import.meta.url));
  /** The URL its start-up lines name. */
  const urlOf = (child: ChildProcessWithoutNullStreams) =>
    new Promise<string>((resolve) => {
      let out = '';
      child.stdout.on('data', (b: Buffer) => {
        out += b;
        const m = /on (https?:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]);
      });
    });
  const run = (args: string[]) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, [BIN, 'mock', ...args, '--port', '0'], { timeout: within(10_000) }, (_err, _stdout, stderr) => resolve({ code: child.exitCode, stderr }));
    });

  it('--record without --upstream is a usage error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conformance-record-'));
    const r = await run(['--record', dir]);
    rmSync(dir, { recursive: true, force: true });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('conformance: --upstream is required to record\n');
  });

  it('--config and, when recording, --fault are refused: the recordings and the upstream are the answers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conformance-record-'));
    const withConfig = await run(['--replay', dir, '--config', 'x.yaml']);
    const withFault = await run(['--record', dir, '--upstream', 'http://127.0.0.1:9', '--fault', 'rate-limited']);
    rmSync(dir, { recursive: true, force: true });
    expect(withConfig).toEqual({ code: 2, stderr: `conformance: --config does not apply to --replay: the files in ${dir} are the configuration\n` });
    expect(withFault.code).toBe(2);
    expect(withFault.stderr).toMatch(/^conformance: --fault does not apply to --record/);
  });

  it('warns of an upstream given with /v1, which requests would double', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conformance-record-'));
    const child = execFile(process.execPath, [BIN, 'mock', '--record', dir, '--upstream', 'http://127.0.0.1:9/v1', '--port', '0']);
    const stderr = await new Promise<string>((resolve) => {
      let err = '';
      child.stderr!.on('data', (b: Buffer) => (err += b) && err.includes('\n') && resolve(err));
    });
    child.kill();
    rmSync(dir, { recursive: true, force: true });
    expect(stderr).toBe('conformance: warning: --upstream ends in /v1, and requests keep their /v1/... path: did you mean http://127.0.0.1:9?\n');
  });

  it('--record from the command line: the key from CONFORMANCE_UPSTREAM_KEY, the file from --test-id-header, --redact applied', async () => {
    const upstream = await startMockServer({ mock: createMock(DEFAULT_CONFIG) });
    const dir = mkdtempSync(join(tmpdir(), 'conformance-record-'));
    const child = spawn(process.execPath, [BIN, 'mock', '--record', dir, '--upstream', upstream.url, '--test-id-header', 'x-case', '--redact', 'x-org', '--port', '0'], {
      env: { ...process.env, CONFORMANCE_UPSTREAM_KEY: UPSTREAM_KEY },
    });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b));
    try {
      const url = await urlOf(child);
      const r = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk-any-client-key-778899', 'content-type': 'application/json', 'x-case': 'case-one', 'x-org': 'org-value-445566' },
        body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'For org-value-445566: hello.' }] }),
      });
      expect(r.status).toBe(200);
      await r.json();
      // The recording is written once the answer has gone out: wait for its line (a hang guard).
      for (const end = performance.now() + within(10_000); performance.now() < end && !stderr.includes('case-one.yaml'); ) await new Promise((res) => setTimeout(res, 50));
      const text = readFileSync(join(dir, 'case-one.yaml'), 'utf8');
      expect(text).toContain('For [REDACTED]: hello.');
      for (const secret of [UPSTREAM_KEY, 'sk-any-client-key-778899', 'org-value-445566']) {
        expect(text).not.toContain(secret);
        expect(stderr).not.toContain(secret);
      }
      expect(stderr).toMatch(/recorded .*case-one\.yaml: recorded 1: mock-chat-1/);
    } finally {
      child.kill();
      await upstream.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--replay keeps the recorded pace, and --no-delays does not wait out a recorded 10 minutes', async () => {
    const paced = await startMockServer({ mock: createMock({ ...DEFAULT_CONFIG, timing: { ttft_ms: 600, tokens_per_second: 0 } }) });
    const dir = mkdtempSync(join(tmpdir(), 'conformance-record-'));
    try {
      const rec = await startRecorder({ dir, mode: 'record', upstream: paced.url, upstreamKey: UPSTREAM_KEY });
      await client(rec.url).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hi.' }] });
      await rec.close();
      for (const flags of [[], ['--no-delays']]) {
        // Without delays, the recording says 10 minutes: a pace kept by mistake would hold the
        // answer past the client's timeout.
        if (flags.length) expect(lengthenDelays(dir)).toEqual([[TEN_MINUTES_MS]]);
        const child = spawn(process.execPath, [BIN, 'mock', '--replay', dir, '--port', '0', ...flags]);
        try {
          const url = await urlOf(child);
          const started = performance.now();
          const answer = await client(url).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hi.' }] }, { timeout: within(15_000) });
          const took = performance.now() - started;
          expect(answer.choices[0].message.content).toBeTruthy();
          if (!flags.length) expect(took).toBeGreaterThanOrEqual(550);
        } finally {
          child.kill();
        }
      }
    } finally {
      await paced.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--replay of a folder holding a broken recording names the file and the field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conformance-record-'));
    writeFileSync(join(dir, 'default.yaml'), 'keys: []\nmodels: []\nscenarios:\n  - name: x\n    match: {}\n    reply: { texts: hi }\n');
    const r = await run(['--replay', dir]);
    rmSync(dir, { recursive: true, force: true });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(dir, 'default.yaml')}:6: scenarios[0].reply.texts: unknown field`);
  });
});
