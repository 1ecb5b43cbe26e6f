// Latency samples of a load, in logarithmic buckets: memory bounded whatever the number of answers
// (a bucket per 1% of range: a few hundred from a millisecond to an hour), percentiles within 1%,
// and two processes' histograms add up bucket by bucket, so their reports merge.

import type { LatencyHistogram } from './check.js';

const HISTOGRAM_BASE = 1.01;
const LOG_BASE = Math.log(HISTOGRAM_BASE);

export class Histogram {
  private readonly buckets = new Map<number, number>();
  count = 0;
  max = 0;

  add(v: number): void {
    const i = Math.round(Math.log1p(Math.max(0, v)) / LOG_BASE);
    this.buckets.set(i, (this.buckets.get(i) ?? 0) + 1);
    this.count++;
    if (v > this.max) this.max = v;
  }

  toJSON(): LatencyHistogram {
    return { base: HISTOGRAM_BASE, buckets: Object.fromEntries([...this.buckets].sort((a, b) => a[0] - b[0])), count: this.count, max: Math.round(this.max * 10) / 10 };
  }
}
