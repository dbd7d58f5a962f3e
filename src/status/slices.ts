// Walking every object of a large fleet without holding up the event loop:
// the status page, its API and the summary visit up to 50,000 views per
// request, which took ~100 ms in one go (bench/status-page.ts) — a stall of
// /metrics, /healthz and, in sidecar mode, the operator's API calls through
// the proxy. In slices with a turn of the loop between them, the request takes
// as long but nothing waits behind it; the slices of all requests share one
// budget per turn (net/turns.ts), so 100 parallel requests do not stall it either.
import { sharedTurns, type TurnShare } from "../net/turns.ts";

/** Views between two looks at the clock (a look costs more than a view). */
const checkEvery = 256;

/** Calls `visit` for every item, working only while a turn's budget lasts; returns the turns waited for. */
export async function eachInSlices<T>(
  items: Iterable<T>,
  visit: (item: T) => void,
  turns: TurnShare = sharedTurns,
): Promise<number> {
  let waited = 0;
  let n = 0;
  for (const item of items) {
    // Looked at before an item (the first included), not after: the last item waits for no turn.
    if (n++ % checkEvery === 0 && !turns.open()) {
      await turns.next();
      waited++;
    }
    visit(item);
  }
  return waited;
}
