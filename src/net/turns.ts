// One budget of work per turn of the event loop, shared by every request that
// works in slices (/metrics, the status page and its API, audit batches). A
// slice per request and per turn is not enough: 100 parallel
// /api/v1/summary requests resumed in the same turn ran 100 slices back to
// back, and /healthz, the watches and the proxy's counters waited 120–260 ms
// behind them (bench/proxy-latency.ts). Here a turn's budget is opened for one
// waiting caller at a time, in the order they asked, so the longest stretch of
// sliced work is about one budget, however many callers there are.

/** Work between two turns of the event loop, all callers together (a scrape at 50k objects: ~60 slices). */
export const sliceMs = 5;

export class TurnShare {
  readonly #budgetMs: number;
  readonly #clock: () => number;
  readonly #schedule: (run: () => void) => void;
  /** When the budget of the turn that is running ends (0: no turn opened yet). */
  #budgetEnd = 0;
  readonly #waiting: (() => void)[] = [];
  #scheduled = false;

  constructor(
    budgetMs = sliceMs,
    clock: () => number = performance.now.bind(performance),
    schedule: (run: () => void) => void = setImmediate,
  ) {
    this.#budgetMs = budgetMs;
    this.#clock = clock;
    this.#schedule = schedule;
  }

  /** True while the budget of the current turn lasts: the caller may go on working. */
  open(): boolean {
    return this.#clock() < this.#budgetEnd;
  }

  /** Resolves at a later turn, with its budget the caller's (callers are served one per turn, first come first). */
  next(): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      this.#scheduleTurn();
    });
  }

  /** Resolves at once while the budget lasts, else at a later turn (next()). */
  async slice(): Promise<void> {
    if (!this.open()) await this.next();
  }

  #scheduleTurn(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    this.#schedule(() => this.#turn());
  }

  #turn(): void {
    this.#scheduled = false;
    const resume = this.#waiting.shift();
    if (this.#waiting.length > 0) this.#scheduleTurn();
    this.#budgetEnd = this.#clock() + this.#budgetMs;
    resume?.();
  }
}

/** The process's one share: everything that works in slices on the main event loop uses it. */
export const sharedTurns = new TurnShare();
