// The reply cache keeps what comes back, per key and content header, within its bounds.
import { describe, expect, it } from 'vitest';
import { ReplyCache } from '../../mock/core/reply-cache.js';

describe('ReplyCache', () => {
  it('keeps a reply from its second sighting on, apart per space', () => {
    const cache = new ReplyCache<string>();
    cache.offer('alpha', '{"a":1}', 'first');
    expect(cache.get('alpha', '{"a":1}')).toBeUndefined();
    cache.offer('alpha', '{"a":1}', 'second');
    expect(cache.get('alpha', '{"a":1}')).toBe('second');
    // The same body under another key or content header is another reply.
    expect(cache.get('beta', '{"a":1}')).toBeUndefined();
  });

  it('holds at most 512 replies in all, however many spaces', () => {
    const cache = new ReplyCache<number>();
    for (let i = 0; i < 600; i++) for (const pass of [0, 1]) cache.offer(`space-${i % 70}`, `body-${i}`, pass);
    let kept = 0;
    for (let i = 0; i < 600; i++) if (cache.get(`space-${i % 70}`, `body-${i}`) !== undefined) kept++;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThanOrEqual(512);
    // The newest is always there.
    expect(cache.get(`space-${599 % 70}`, 'body-599')).toBe(1);
  });

  it('forgets sightings past 4 MiB of bodies, so large distinct bodies cannot pile up', () => {
    const cache = new ReplyCache<number>();
    const big = (i: number) => `${i}`.padEnd(16 * 1024, 'x');
    for (let i = 0; i < 300; i++) cache.offer('k', big(i), i);
    // 300 bodies of 16 KiB are 4.7 MiB: the first were forgotten, so seeing it again is a first sighting.
    cache.offer('k', big(0), 0);
    expect(cache.get('k', big(0))).toBeUndefined();
    cache.offer('k', big(299), 299);
    expect(cache.get('k', big(299))).toBe(299);
  });
});
