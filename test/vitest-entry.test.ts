// chat-api-conformance/vitest as a team uses it: their server (here the mock) started inside their
// tests, held to the document by a test per check and path; and the cases that entry makes fail
// exactly where a run would, with what broke and the command that replays it.
import { afterAll, describe, expect, it } from 'vitest';
import { createMock } from '../mock/core/handle.js';
import { startMockServer } from '../mock/http.js';
import { runSession } from '../suites/session.js';
import { conformanceCases, describeConformance } from '../suites/vitest.js';
import { KEY, SECOND_KEY } from './support/run.js';

describeConformance({
  name: 'the mock, held to the document from inside a vitest run',
  suites: ['chat', 'stop'],
  start: async () => {
    const server = await startMockServer();
    return { baseUrl: server.url, apiKey: KEY, secondApiKey: SECOND_KEY, close: () => server.close() };
  },
});

// A server that is already running when the file is collected: named by its URL and key alone.
const running = await startMockServer();
afterAll(() => running.close());
describeConformance({ name: 'a running mock, named by its URL and key', suites: ['stop'], baseUrl: running.url, apiKey: KEY });

describe('describeConformance', () => {
  it('says both forms when given neither, and what is wrong with the one given', () => {
    expect(() => describeConformance({} as never)).toThrow(/running server, \{ baseUrl: .*, apiKey \}, or one it starts, \{ start: .*; neither was given/);
    expect(() => describeConformance({ baseUrl: 'http://127.0.0.1:1' } as never)).toThrow(/apiKey is missing for http:\/\/127\.0\.0\.1:1/);
    expect(() => describeConformance({ start: 'yes' } as never)).toThrow(/start is string, not a function/);
  });
});

/** Whether a case's assertion holds (does not throw). */
const holds = (c: { assert(): void }) => {
  try {
    c.assert();
    return true;
  } catch {
    return false;
  }
};

describe('conformance cases', () => {
  it('fail on the broken path only, with what broke and how to replay it; a failed should fails only when strict', async () => {
    const server = await startMockServer({ mock: createMock(undefined, { faults: ['chat-max-tokens-ignored-streamed', 'chat-model-other'] }) });
    try {
      const report = await runSession({ baseUrl: server.url, apiKey: KEY, secondApiKey: SECOND_KEY, suites: ['chat'] });
      const cases = conformanceCases(report.results);
      const cap = cases.filter((c) => c.check === 'chat.max-tokens');
      expect(cap.map((c) => c.path)).toEqual(['json, mock-chat-1', 'json, mock-reason-1', 'stream, mock-chat-1', 'stream, mock-reason-1']);
      for (const c of cap.filter((c) => c.path.startsWith('json'))) expect(() => c.assert()).not.toThrow();
      for (const c of cap.filter((c) => c.path.startsWith('stream'))) expect(() => c.assert()).toThrow(/^chat\.max-tokens \(must, §2\.1, 4\.1, 8\): [\s\S]*Reproduce with: curl /);
      const echo = cases.filter((c) => c.check === 'chat.model-echo');
      expect(echo.every(holds)).toBe(true);
      expect(
        conformanceCases(report.results, { strict: true })
          .filter((c) => c.check === 'chat.model-echo')
          .every((c) => !holds(c)),
      ).toBe(true);
    } finally {
      await server.close();
    }
  });
});
