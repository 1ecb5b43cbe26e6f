// The wait of the abort flows (clients/common.ts): a first content that comes late (a slow engine, a
// busy machine) is no hang; from the abort, the stream has ABORT_GRACE_MS to end. On a busy machine
// the grace counted from the request made every abort flow of the sweep fail with "hang".
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ABORT_GRACE_MS, abortGrace, thrown } from '../../clients/common.js';

const settled = async (p: Promise<unknown>) => {
  let done = false;
  void p.then(() => (done = true));
  await vi.advanceTimersByTimeAsync(0);
  return done;
};

describe('an abort flow waits', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('for the request’s timeout and the grace until it aborts: a late first content is no hang', async () => {
    const grace = abortGrace({ timeoutMs: 60_000 });
    const never = thrown(() => new Promise(() => {}), grace);
    await vi.advanceTimersByTimeAsync(60_000 + ABORT_GRACE_MS - 1);
    expect(await settled(never)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await never).toBe('hang');
  });

  it('for the grace from the abort on, however early or late the abort came', async () => {
    const grace = abortGrace({ timeoutMs: 60_000 });
    const never = thrown(() => new Promise(() => {}), grace);
    await vi.advanceTimersByTimeAsync(12_000);
    grace.started();
    await vi.advanceTimersByTimeAsync(ABORT_GRACE_MS - 1);
    expect(await settled(never)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await never).toBe('hang');
  });

  it('for nothing once the stream ends: what it threw, or nothing, and no timer left', async () => {
    const aborted = new Error('aborted');
    const grace = abortGrace({ timeoutMs: 60_000 });
    grace.started();
    expect(await thrown(() => Promise.reject(aborted), grace)).toBe(aborted);
    expect(vi.getTimerCount()).toBe(0);
    // Settled at once: the grace's limit holds either way.
    expect(await thrown(() => Promise.resolve(1), abortGrace({ timeoutMs: 1 }))).toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });
});
