// A baseline that burns down: listed failures are expected and fail nothing, a listed check that
// passes again fails the run as stale, an entry naming no check is a usage error, and
// --update-baseline writes the list from a run, keeping the reasons of what still fails.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { createMock, type Mock } from '../../mock/core/handle.js';
import { startMockServer } from '../../mock/http.js';
import { runSession, UsageError, type SessionOptions } from '../../suites/session.js';
import { validator } from '../../schemas/index.js';
import { KEY, SECOND_KEY } from '../support/run.js';

/** One session of the chat suite against a mock of the test's own. */
async function run(mock: Mock, opts: Partial<SessionOptions> = {}) {
  const server = await startMockServer({ mock });
  try {
    return await runSession({ baseUrl: server.url, apiKey: KEY, secondApiKey: SECOND_KEY, suites: ['chat'], ...opts });
  } finally {
    await server.close();
  }
}

const broken = () => createMock(undefined, { faults: ['chat-max-tokens-ignored'] });
const dir = () => mkdtempSync(join(tmpdir(), 'baseline-'));

describe('expected failures', () => {
  it('a listed failure is expected and fails nothing; once fixed, the entry is stale and fails the run', async () => {
    const file = join(dir(), 'expected.yaml');
    writeFileSync(file, 'expected:\n  - check: chat.max-tokens\n    reason: the cap is ignored until the next release\n');
    expect((await run(broken())).exitCode).toBe(1);
    const expected = await run(broken(), { expectedFailures: file });
    expect(expected.exitCode).toBe(0);
    expect(expected.results.find((r) => r.id === 'chat.max-tokens')).toMatchObject({ outcome: 'fail', expected: { reason: 'the cap is ignored until the next release' } });
    expect(expected.baseline).toMatchObject({ file, expected: 1, stale: [] });
    expect(validator('report')(JSON.parse(JSON.stringify(expected))).errors).toEqual([]);
    const fixed = await run(createMock(), { expectedFailures: file });
    expect(fixed.exitCode).toBe(1);
    expect(fixed.baseline!.stale).toEqual([expect.objectContaining({ check: 'chat.max-tokens', why: 'chat.max-tokens now passes: remove the entry' })]);
    expect(validator('report')(JSON.parse(JSON.stringify(fixed))).errors).toEqual([]);
  });

  it('an entry for one path expects that path only', async () => {
    const streamedOnly = createMock(undefined, { faults: ['chat-max-tokens-ignored-streamed'] });
    const file = join(dir(), 'expected.json');
    writeFileSync(file, JSON.stringify({ expected: [{ check: 'chat.max-tokens', path: 'stream', reason: 'streams are capped next week' }] }));
    expect((await run(streamedOnly, { expectedFailures: file })).exitCode).toBe(0);
    writeFileSync(file, JSON.stringify({ expected: [{ check: 'chat.max-tokens', path: 'json', reason: 'the wrong path' }] }));
    const wrongPath = await run(streamedOnly, { expectedFailures: file });
    expect(wrongPath.exitCode).toBe(1);
    expect(wrongPath.results.find((r) => r.id === 'chat.max-tokens')?.expected).toBeUndefined();
    // The JSON paths it names pass: the entry is stale as well.
    expect(wrongPath.baseline!.stale.map((e) => e.why)).toEqual(['chat.max-tokens [json] now passes: remove the entry']);
    writeFileSync(file, JSON.stringify({ expected: [{ check: 'chat.max-tokens', model: 'mock-reason-1', reason: 'one model only' }] }));
    expect((await run(streamedOnly, { expectedFailures: file })).exitCode).toBe(1);
  });

  it('refuses, before the first request, an entry naming no check or a file not of the format', async () => {
    const file = join(dir(), 'expected.yaml');
    writeFileSync(file, 'expected:\n  - check: chat.max-tokens\n    reason: ok\n  - check: chat.no-such-check\n    reason: typo\n');
    const mock = createMock();
    await expect(run(mock, { expectedFailures: file })).rejects.toThrow(new UsageError(`${file}:4: expected[1].check: expected the id of a check (conformance list); "chat.no-such-check" is none`));
    writeFileSync(file, 'expected:\n  - check: chat.max-tokens\n');
    await expect(run(mock, { expectedFailures: file })).rejects.toThrow(/expected\.yaml:2: expected\[0\]\.reason: expected this field; it is missing/);
    await expect(run(mock, { expectedFailures: join(dir(), 'absent.yaml') })).rejects.toThrow(/absent\.yaml: cannot read the expected failures: ENOENT/);
    expect(mock.journal.list()).toEqual([]);
  });

  it('--update-baseline writes the list from the run, keeping the reasons of what still fails', async () => {
    const file = join(dir(), 'expected.yaml');
    const created = await run(broken(), { expectedFailures: file, updateBaseline: true });
    expect(created.exitCode).toBe(0);
    const first = parse(readFileSync(file, 'utf8'));
    expect(first.expected).toEqual([{ check: 'chat.max-tokens', reason: expect.stringMatching(/^failing since \d{4}-\d\d-\d\d: say why, and until when$/) }]);
    writeFileSync(file, 'expected:\n  - check: chat.max-tokens\n    reason: kept as written\n  - check: chat.object\n    reason: fixed since\n');
    await run(broken(), { expectedFailures: file, updateBaseline: true });
    expect(parse(readFileSync(file, 'utf8')).expected).toEqual([{ check: 'chat.max-tokens', reason: 'kept as written' }]);
  });
});
