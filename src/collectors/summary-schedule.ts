// When objects' summaries change with the clock alone (Ready=False for longer
// than failedAfter turns Failed): a min-heap of (time, uid) and one timer set
// to the earliest. The pure core says when (`changesAt`); this only wakes the
// collector then. Stale records (the object changed meanwhile) are harmless:
// the collector re-evaluates and finds nothing to do.
interface Due {
  at: number;
  uid: string;
}

export class SummarySchedule {
  readonly #heap: Due[] = [];
  readonly #clock: () => number;
  readonly #wake: () => void;
  #timer: NodeJS.Timeout | undefined;
  #armedFor = Number.POSITIVE_INFINITY;

  /** `clock`: epoch seconds; `wake`: called (from a timer) once something is due. */
  constructor(clock: () => number, wake: () => void) {
    this.#clock = clock;
    this.#wake = wake;
  }

  add(uid: string, at: number): void {
    const heap = this.#heap;
    heap.push({ uid, at });
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((heap[parent] as Due).at <= at) break;
      [heap[parent], heap[i]] = [heap[i] as Due, heap[parent] as Due];
      i = parent;
    }
    this.#arm();
  }

  /** Removes and returns the uids due at `now`. */
  takeDue(now: number): string[] {
    const out: string[] = [];
    while (this.#heap.length > 0 && (this.#heap[0] as Due).at <= now) out.push(this.#pop().uid);
    this.#armedFor = Number.POSITIVE_INFINITY;
    this.#arm();
    return out;
  }

  get size(): number {
    return this.#heap.length;
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#heap.length = 0;
    this.#armedFor = Number.POSITIVE_INFINITY;
  }

  #pop(): Due {
    const heap = this.#heap;
    const top = heap[0] as Due;
    const last = heap.pop() as Due;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let smallest = i;
        if (l < heap.length && (heap[l] as Due).at < (heap[smallest] as Due).at) smallest = l;
        if (r < heap.length && (heap[r] as Due).at < (heap[smallest] as Due).at) smallest = r;
        if (smallest === i) break;
        [heap[smallest], heap[i]] = [heap[i] as Due, heap[smallest] as Due];
        i = smallest;
      }
    }
    return top;
  }

  #arm(): void {
    const next = this.#heap[0];
    if (!next || next.at >= this.#armedFor) return;
    clearTimeout(this.#timer);
    this.#armedFor = next.at;
    // Whole seconds are the API's precision; a little late is fine, early is not.
    const delayMs = Math.max(0, (next.at - this.#clock()) * 1000) + 5;
    this.#timer = setTimeout(
      () => {
        this.#armedFor = Number.POSITIVE_INFINITY;
        this.#wake();
      },
      Math.min(delayMs, 2 ** 31 - 1),
    );
    this.#timer.unref();
  }
}
