/** Calls and failures of one connection over the last few minutes, in one-minute buckets (this process's view). */
export class OutcomeWindow {
  private readonly calls: number[];
  private readonly failures: number[];
  private readonly minuteOf: number[];

  constructor(private readonly minutes = 5) {
    this.calls = new Array<number>(minutes).fill(0);
    this.failures = new Array<number>(minutes).fill(0);
    this.minuteOf = new Array<number>(minutes).fill(-1);
  }

  add(nowMs: number, failed: boolean): void {
    const minute = Math.floor(nowMs / 60_000);
    const slot = minute % this.minutes;
    if (this.minuteOf[slot] !== minute) {
      this.minuteOf[slot] = minute;
      this.calls[slot] = 0;
      this.failures[slot] = 0;
    }
    this.calls[slot]! += 1;
    if (failed) this.failures[slot]! += 1;
  }

  /** Calls and failures of the current minute and the `minutes - 1` before it. */
  totals(nowMs: number): { calls: number; failures: number } {
    const minute = Math.floor(nowMs / 60_000);
    let calls = 0;
    let failures = 0;
    for (let i = 0; i < this.minutes; i++) {
      if (this.minuteOf[i]! > minute - this.minutes) {
        calls += this.calls[i]!;
        failures += this.failures[i]!;
      }
    }
    return { calls, failures };
  }
}
