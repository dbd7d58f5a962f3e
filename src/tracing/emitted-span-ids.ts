// Remembers the ids of the spans emitted recently, so that a relist, a replay
// or a repeated observation never exports the same span twice from this
// process. Bounded: the oldest ids are forgotten first.
export class EmittedSpanIds {
  readonly #capacity: number;
  readonly #ids = new Set<string>();

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new Error(`tracing: the emitted-span memory needs a positive integer capacity (got ${capacity})`);
    }
    this.#capacity = capacity;
  }

  /** Records the span; false when it was already recorded (it is then refreshed as most recent). */
  add(traceId: string, spanId: string): boolean {
    const key = `${traceId}/${spanId}`;
    if (this.#ids.has(key)) {
      this.#ids.delete(key);
      this.#ids.add(key);
      return false;
    }
    this.#ids.add(key);
    if (this.#ids.size > this.#capacity) {
      const oldest = this.#ids.values().next().value;
      if (oldest !== undefined) this.#ids.delete(oldest);
    }
    return true;
  }

  get size(): number {
    return this.#ids.size;
  }
}
