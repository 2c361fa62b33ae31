import { describe, expect, it } from 'vitest';
import { IdleCollector } from './idle-collector.js';

const MB = 1024 * 1024;

describe('IdleCollector', () => {
  it('collects at start, then in a quiet spell only while the young generation is grown and 10 s after its last collection', async () => {
    let t = 0;
    let collections = 0;
    let young = 32 * MB;
    const c = new IdleCollector({ gc: () => collections++, youngBytes: () => young, now: () => t, tickMs: 60_000 });
    c.start();
    await new Promise((r) => setImmediate(r));
    expect(collections).toBe(1); // the start's garbage, at once
    const tick = (ms: number) => {
      t += ms;
      c.tick();
    };
    c.requests += 3; // readiness probes
    tick(2000); // sees the requests
    tick(2000); // quiet 1
    tick(2000); // quiet 2, but V8's reducer has not had its 8 s yet
    expect(collections).toBe(1);
    young = 1 * MB; // the reducer shrank it
    tick(6000);
    tick(2000);
    expect(collections).toBe(1);

    c.requests += 500; // a burst grows it again
    young = 32 * MB;
    tick(2000);
    tick(2000);
    expect(collections).toBe(1);
    tick(2000); // quiet 2, grown, last collection long ago
    expect(collections).toBe(2);
    tick(2000);
    tick(2000);
    expect(collections).toBe(2); // waits for the reducer
    tick(8000); // the reducer did not shrink it (allocation was not low): once more
    expect(collections).toBe(3);

    for (let i = 0; i < 10; i++) {
      c.requests++; // steady traffic never collects
      tick(20_000);
    }
    expect(collections).toBe(3);
    c.stop();
  });

  it('does nothing without a gc function (node without --expose-gc)', () => {
    const c = new IdleCollector({ gc: undefined, youngBytes: () => 32 * MB, tickMs: 1 });
    c.start();
    for (let i = 0; i < 5; i++) c.tick();
    c.stop();
  });
});
