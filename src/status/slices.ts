// Walking every object of a large fleet without holding up the event loop:
// the status page, its API and the summary visit up to 50,000 views per
// request, which took ~100 ms in one go (bench/status-page.ts) — a stall of
// /metrics, /healthz and, in sidecar mode, the operator's API calls through
// the proxy. In slices of a few milliseconds with a turn of the loop between
// them, the request takes as long but nothing waits behind it.
import { setImmediate as nextTurn } from "node:timers/promises";

/** Work between two turns of the event loop. */
export const sliceMs = 8;
/** Views between two looks at the clock (a look costs more than a view). */
const checkEvery = 256;

/** Calls `visit` for every item, yielding to the event loop once a slice has taken `budgetMs`. */
export async function eachInSlices<T>(
  items: Iterable<T>,
  visit: (item: T) => void,
  budgetMs = sliceMs,
  clock: () => number = performance.now.bind(performance),
  turn: () => Promise<unknown> = nextTurn,
): Promise<number> {
  let sliceStart = clock();
  let turns = 0;
  let n = 0;
  for (const item of items) {
    visit(item);
    if (++n % checkEvery !== 0) continue;
    if (clock() - sliceStart < budgetMs) continue;
    await turn();
    turns++;
    sliceStart = clock();
  }
  return turns;
}
