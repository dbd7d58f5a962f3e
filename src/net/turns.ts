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

/** "first": a caller with a deadline (a scrape, an audit batch); "later": one a person waits for. */
export type TurnPriority = "first" | "later";

/** Turns in a row the "first" callers get while "later" ones wait. */
const firstTurnsInARow = 3;

export class TurnShare {
  readonly #budgetMs: number;
  readonly #clock: () => number;
  readonly #schedule: (run: () => void) => void;
  /** When the budget of the turn that is running ends (0: no turn opened yet). */
  #budgetEnd = 0;
  readonly #waiting: Record<TurnPriority, (() => void)[]> = { first: [], later: [] };
  /** Turns given to "first" callers since a "later" one had its turn. */
  #firstInARow = 0;
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

  /**
   * Resolves at a later turn, with its budget the caller's: one caller per
   * turn, first come first within a priority, "first" callers three turns of four.
   */
  next(priority: TurnPriority = "later"): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting[priority].push(resolve);
      this.#scheduleTurn();
    });
  }

  /** Resolves at once while the budget lasts, else at a later turn (next()). */
  async slice(priority: TurnPriority = "later"): Promise<void> {
    if (!this.open()) await this.next(priority);
  }

  #scheduleTurn(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    this.#schedule(() => this.#turn());
  }

  #turn(): void {
    this.#scheduled = false;
    const resume = this.#nextCaller();
    if (this.#waiting.first.length + this.#waiting.later.length > 0) this.#scheduleTurn();
    this.#budgetEnd = this.#clock() + this.#budgetMs;
    resume?.();
  }

  #nextCaller(): (() => void) | undefined {
    const { first, later } = this.#waiting;
    const laterDue = later.length > 0 && (first.length === 0 || this.#firstInARow >= firstTurnsInARow);
    if (laterDue) {
      this.#firstInARow = 0;
      return later.shift();
    }
    // A turn is scheduled only while someone waits: if no "later" caller is due, a "first" one is there.
    this.#firstInARow++;
    return first.shift();
  }
}

/** The process's one share: everything that works in slices on the main event loop uses it. */
export const sharedTurns = new TurnShare();
