// Exponential backoff with jitter, used after every failed list or watch so a
// broken apiserver (or a Forbidden resource) is retried without hammering it.
export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  random?: () => number;
}

export class Backoff {
  readonly #options: Required<BackoffOptions>;
  #attempt = 0;

  constructor(options: BackoffOptions) {
    this.#options = { random: Math.random, ...options };
  }

  /** The next delay: between half and all of initial × 2^attempt, capped at max (or a lower `cap`). */
  next(cap = Number.POSITIVE_INFINITY): number {
    const { initialMs, maxMs, random } = this.#options;
    const ceiling = Math.min(maxMs, cap, initialMs * 2 ** this.#attempt);
    this.#attempt = Math.min(this.#attempt + 1, 30);
    return Math.round(ceiling / 2 + (random() * ceiling) / 2);
  }

  reset(): void {
    this.#attempt = 0;
  }
}

/** Sleeps for `ms`, or less if `signal` aborts first (never rejects). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: done() removes the listener itself, so once changes nothing
    signal.addEventListener("abort", done, { once: true });
  });
}
