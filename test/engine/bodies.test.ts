// The bodies of a run, held within a budget: past it the least recently read wait in a file and
// come back whole when read.
import { describe, expect, it } from 'vitest';
import { BodyStore } from '../../engine/bodies.js';

describe('the body store', () => {
  it('keeps at most its budget in memory and gives every body back whole', () => {
    const store = new BodyStore(3 * 1024);
    const bodies = Array.from({ length: 10 }, (_, i) => Buffer.alloc(1024, String.fromCharCode(97 + i)));
    const held = bodies.map((b) => store.hold(Buffer.from(b)));
    expect(store.held()).toBeLessThanOrEqual(3 * 1024);
    for (const i of [0, 9, 3, 3, 7, 0]) {
      expect(store.read(held[i]).equals(bodies[i])).toBe(true);
      expect(store.held()).toBeLessThanOrEqual(3 * 1024);
    }
    store.close();
  });

  it('keeps a body larger than its budget while it is the one just read', () => {
    const store = new BodyStore(100);
    const big = store.hold(Buffer.alloc(1000, 'x'));
    const small = store.hold(Buffer.alloc(10, 'y'));
    expect(store.read(big).length).toBe(1000);
    expect(store.read(small).toString()).toBe('y'.repeat(10));
    store.close();
  });
});
