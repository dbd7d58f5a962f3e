// Whether V8 gives back the pages its heap frees (bench/README.md, "Missed
// targets"): builds ~150 MB of live objects, drops a quarter of them,
// promotes short-lived strings for a while (as back-to-back scrapes do),
// then prints RSS beside the committed heap after a normal full collection,
// after a wait, and after a last-resort collection (the one that empties
// V8's page pool). Needs --expose-gc; V8 flags to compare go on the same
// command line:
//   node --expose-gc bench/page-pool.ts [--churn-seconds 8] [--idle-seconds 12]
//   node --expose-gc --heap-growing-percent=20 bench/page-pool.ts
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import v8 from "node:v8";

const { values: flags } = parseArgs({
  options: {
    "churn-seconds": { type: "string", default: "8" },
    "idle-seconds": { type: "string", default: "12" },
  },
});
const gc = (globalThis as { gc?: (options?: object) => void }).gc;
if (!gc) throw new Error("run with node --expose-gc");

const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(0);

function show(when: string): void {
  const heap = v8.getHeapStatistics();
  const rss = process.memoryUsage.rss();
  const lazyFree = /^LazyFree:\s+(\d+) kB/m.exec(readFileSync("/proc/self/smaps_rollup", "utf8"))?.[1];
  console.log(
    `${when.padEnd(28)} RSS ${mib(rss).padStart(5)} MiB, heap committed ${mib(heap.total_heap_size).padStart(5)}, ` +
      `used ${mib(heap.used_heap_size).padStart(5)}, RSS beyond the committed heap ${mib(rss - heap.total_heap_size).padStart(5)}` +
      (lazyFree === undefined ? "" : `, LazyFree ${lazyFree} kB`),
  );
}

show("start");
let live: { a: string; b: number; c: number[] }[] = [];
for (let i = 0; i < 1_500_000; i++) live.push({ a: `x${i}`, b: i, c: [i] });
gc();
show("live objects built");
live = live.slice(0, 1_100_000);
const recent: string[] = [];
const until = Date.now() + Number(flags["churn-seconds"]) * 1000;
while (Date.now() < until) {
  let text = "";
  for (let i = 0; i < 20_000; i++) text += `cr_condition{x="${i}"} 1\n`;
  recent.push(text);
  if (recent.length > 20) recent.shift();
  for (let i = 0; i < 2_000; i++)
    live[Math.floor(Math.random() * live.length)] = { a: `y${i}`, b: i, c: [i] };
  await new Promise((resolve) => setImmediate(resolve));
}
show("after the churn");
gc();
show("after a full collection");
await sleep(Number(flags["idle-seconds"]) * 1000);
show(`after ${flags["idle-seconds"]} s idle`);
gc({ type: "major", execution: "sync", flavor: "last-resort" });
show("after a last-resort collection");
console.log(`(${live.length} objects still live, ${recent.length} texts)`);
