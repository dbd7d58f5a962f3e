// The status layer at fleet size, in this process: heap bytes per object of
// the transition ring (empty, and full with capped reasons and messages), and
// CPU time of what the first screen costs over N object views (not-Ready page
// of 100, the summary, the rendered HTML) and of one JSON page.
//
//   node --expose-gc bench/status-page.ts [objects=50000]

import { defaultStatusPage } from "../src/config/status-page.ts";
import { objectItem } from "../src/status/json.ts";
import { renderStatusPage } from "../src/status/page/render.ts";
import { runQuery } from "../src/status/query.ts";
import { parseObjectQuery } from "../src/status/query-params.ts";
import { appendTransitions } from "../src/status/ring.ts";
import { summarize } from "../src/status/summary.ts";
import type { ObjectView, TransitionRecord } from "../src/status/view.ts";
import { viewCaps } from "../src/status/view.ts";
import { statusFleet } from "../test/support/status-fleet.ts";
import { fixedSource, viewNow } from "../test/support/views.ts";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc");
const objects = Number(process.argv[2] ?? 50_000);

function heapAfterGc(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

/** A full ring with distinct strings per object, as messages from the API would be. */
function fullRing(i: number): readonly TransitionRecord[] {
  let ring: readonly TransitionRecord[] = [];
  for (let k = 0; k < viewCaps.ringCapacity + 2; k++) {
    ring = appendTransitions(ring, [
      {
        kind: "condition",
        type: "Ready",
        from: k % 2 ? "False" : "True",
        to: k % 2 ? "True" : "False",
        at: viewNow - k,
        since: undefined,
        reason: `Reason${i}-${k}-${"r".repeat(80)}`,
        message: `object ${i} change ${k}: ${"m".repeat(300)}`,
      },
    ]);
  }
  return ring;
}

function ringBytes(make: (i: number) => readonly TransitionRecord[]): number {
  const keep: (readonly TransitionRecord[])[] = [];
  const before = heapAfterGc();
  for (let i = 0; i < objects; i++) keep.push(make(i));
  const after = heapAfterGc();
  return (after - before) / keep.length;
}

function cpuMs<T>(fn: () => T, rounds = 7): { ms: number; result: T } {
  const times: number[] = [];
  let result = fn();
  for (let r = 0; r < rounds; r++) {
    const started = process.cpuUsage();
    result = fn();
    const used = process.cpuUsage(started);
    times.push((used.user + used.system) / 1000);
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)] as number, result };
}

const created: TransitionRecord = { at: viewNow, what: "created" };
const emptyRing = ringBytes(() => []);
const oneEntry = ringBytes(() => [{ ...created }]);
const full = ringBytes(fullRing);

// A fleet like the demo's, repeated: about 40 % of it not Ready.
const template = statusFleet();
const views: ObjectView[] = [];
for (let i = 0; i < objects; i++) {
  const base = template[i % template.length] as ObjectView;
  views.push({
    ...base,
    name: `${base.name}-${i}`,
    uid: `uid-${i}`,
    namespace: base.namespace ? `ns-${i % 50}` : "",
  });
}
const source = fixedSource(views);
const settings = { flappingMinTransitions: 4, links: { dashboardUrl: undefined, traceUrl: undefined } };

const firstScreen = cpuMs(() => {
  const params = new URLSearchParams();
  const query = parseObjectQuery(params, undefined, { notReady: true });
  return renderStatusPage({
    now: viewNow,
    params,
    query,
    error: undefined,
    page: runQuery(source.objects(), query, settings),
    summary: summarize(source.kinds(), source.objects(), undefined, settings),
    kinds: source.kinds(),
    settings: { ...settings, refreshSeconds: defaultStatusPage.refreshSeconds },
  });
});
const jsonPage = cpuMs(() => {
  const query = parseObjectQuery(new URLSearchParams("notReady=true&limit=500"));
  return JSON.stringify(
    runQuery(source.objects(), query, settings).items.map((v) => objectItem(v, viewNow, settings)),
  );
});

console.log(
  JSON.stringify(
    {
      objects,
      ringCaps: viewCaps,
      heapBytesPerObject: {
        emptyRing: Math.round(emptyRing),
        createdOnly: Math.round(oneEntry),
        fullRingCappedText: Math.round(full),
      },
      firstScreenCpuMs: Math.round(firstScreen.ms),
      firstScreenHtmlBytes: firstScreen.result.length,
      jsonPage500CpuMs: Math.round(jsonPage.ms),
    },
    null,
    2,
  ),
);
