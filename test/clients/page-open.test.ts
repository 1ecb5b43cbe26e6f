// The browser client's page is the kit's own: one that does not open (a Chromium slow to start on a
// busy machine, a bundle that fails) leaves its flow not tested, saying why, and never a failure of
// the server, which was asked nothing.
import { describe, expect, it } from 'vitest';
import { BROWSER } from '../../clients/browser.js';
import type { FlowContext } from '../../clients/flow.js';

/** The loaded client as BROWSER.load gives it, its page host one whose pages never open. */
const sdk = {
  playwright: {},
  openai: '',
  hosts: new Map([['127.0.0.1', { page: async () => Promise.reject(new Error('page.waitForFunction: Timeout 10000ms exceeded.')), close: async () => {} }]]),
} as unknown as Parameters<(typeof BROWSER.flows)[number]['run']>[0];

const asked: string[] = [];
const ctx: FlowContext = {
  baseURL: 'http://127.0.0.1:9/v1',
  apiKey: 'sk-never-sent',
  model: 'mock-chat-1',
  headers: {},
  fetch: async (input) => {
    asked.push(String(input));
    throw new Error('no request is sent when the page did not open');
  },
  timeoutMs: 60_000,
  busyOnce: () => {},
  chatRequests: () => [],
  record: (e) => asked.push(e.request.url),
};

describe('a browser flow whose page does not open', () => {
  it.each(BROWSER.flows.map((f) => [f.name, f] as const))("%s: not tested, the kit's page named, the server asked nothing", async (_name, flow) => {
    const verdict = await flow.run(sdk, ctx);
    expect(verdict.outcome).toBe('not-tested');
    expect(verdict.message).toMatch(/^the kit's page did not open in Chromium \(.*Timeout 10000ms exceeded.*\): the flow was not run$/);
    expect(asked).toEqual([]);
  });
});
