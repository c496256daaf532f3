/** One item's outcome inside a batch: its own value, or its own error. */
export type ItemResult<O> = { ok: true; value: O } | { ok: false; error: unknown };

export interface GroupCommitOptions<I, O> {
  /** One statement for the whole batch; returns one result per item, in the items' order. */
  runBatch(items: readonly I[]): Promise<ItemResult<O>[]>;
  /** The same work for one item alone (a batch of one, and the fallback when a batch fails as a whole). */
  runOne(item: I): Promise<O>;
  /**
   * Whether a failed batch certainly left nothing behind, so each item can run again alone and get its own
   * outcome. When false (e.g. the connection dropped and the commit is in doubt), every item fails with the error.
   */
  canRetryAlone(err: unknown): boolean;
  /** Most items per statement. */
  maxBatch: number;
  /** Batches running at once; items arriving meanwhile wait and form the next batch. */
  maxInFlight: number;
}

interface Waiting<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit: calls that arrive in the same turn of the event loop (or while earlier batches run) go to the
 * database as one statement. Each caller still gets only its own result or error.
 */
export class GroupCommit<I, O> {
  private queue: Waiting<I, O>[] = [];
  private scheduled = false;
  private inFlight = 0;

  constructor(private readonly opts: GroupCommitOptions<I, O>) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.opts.maxInFlight || this.queue.length === 0) return;
    this.scheduled = true;
    // setImmediate runs after the current I/O phase: every request whose data arrived in it has queued by then.
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    while (this.inFlight < this.opts.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.opts.maxBatch);
      this.inFlight += 1;
      void this.run(batch).finally(() => {
        this.inFlight -= 1;
        this.schedule();
      });
    }
  }

  private async run(batch: Waiting<I, O>[]): Promise<void> {
    if (batch.length === 1) return this.runAlone(batch[0]);
    let results: ItemResult<O>[];
    try {
      results = await this.opts.runBatch(batch.map((w) => w.item));
      if (results.length !== batch.length) throw new Error(`a batch of ${batch.length} returned ${results.length} results`);
    } catch (err) {
      if (!this.opts.canRetryAlone(err)) {
        for (const w of batch) w.reject(err);
        return;
      }
      await Promise.all(batch.map((w) => this.runAlone(w)));
      return;
    }
    batch.forEach((w, i) => {
      const r = results[i];
      if (r.ok) w.resolve(r.value);
      else w.reject(r.error);
    });
  }

  private async runAlone(w: Waiting<I, O>): Promise<void> {
    try {
      w.resolve(await this.opts.runOne(w.item));
    } catch (err) {
      w.reject(err);
    }
  }
}
