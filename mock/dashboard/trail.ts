// What the dashboard keeps of every request while it is served, a page open or not: the label of a
// key the mock does not know (a salted hash, never the key), the answer's times and whether it was
// cut before its end. A page that
// opens later reads them beside the journal, so a row reads the same whether a page saw its request
// live or learns of it afterwards. Typed arrays in a ring as long as the journal: no object per
// request for the collector to trace.
export class Trail {
  private readonly seqs: Float64Array;
  private readonly ttfb: Float64Array;
  private readonly total: Float64Array;
  /** 1: cut before its end; 0: whole; 2: not ended yet. */
  private readonly cut: Uint8Array;
  private readonly labels: (string | undefined)[];

  constructor(private readonly size: number) {
    const n = Math.max(0, size);
    this.seqs = new Float64Array(n);
    this.ttfb = new Float64Array(n);
    this.total = new Float64Array(n);
    this.cut = new Uint8Array(n);
    this.labels = new Array(n);
  }

  private at(seq: number): number {
    return this.size > 0 && this.seqs[seq % this.size] === seq ? seq % this.size : -1;
  }

  /** A request journaled as `seq`, sent with the key `label` names (undefined: a key of the configuration, or none). */
  start(seq: number, label: string | undefined): void {
    if (this.size <= 0) return;
    const i = seq % this.size;
    this.seqs[i] = seq;
    this.ttfb[i] = Number.NaN;
    this.total[i] = Number.NaN;
    this.cut[i] = 2;
    this.labels[i] = label;
  }

  /** Its answer's first piece went out, `ms` after the request arrived. */
  firstByte(seq: number, ms: number): void {
    const i = this.at(seq);
    if (i >= 0 && Number.isNaN(this.ttfb[i])) this.ttfb[i] = ms;
  }

  /** Its answer ended, whole or `cut` (the connection reset, or the client left), `ms` after the
   * request arrived. */
  end(seq: number, ms: number, cut: boolean): void {
    const i = this.at(seq);
    if (i < 0) return;
    this.total[i] = ms;
    this.cut[i] = cut ? 1 : 0;
    if (Number.isNaN(this.ttfb[i])) this.ttfb[i] = ms;
  }

  get(seq: number): { label: string | undefined; ttfb_ms: number | null; total_ms: number | null; cut: boolean | null } | undefined {
    const i = this.at(seq);
    if (i < 0) return undefined;
    const ms = (n: number) => (Number.isNaN(n) ? null : n);
    return { label: this.labels[i], ttfb_ms: ms(this.ttfb[i]), total_ms: ms(this.total[i]), cut: this.cut[i] === 2 ? null : this.cut[i] === 1 };
  }
}
