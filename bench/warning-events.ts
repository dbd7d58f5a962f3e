// What a Warning event costs the exporter: the path of each watch event of
// events.k8s.io (JSON.parse of the line's object, projectWarningEvent, the
// per-uid count memory, the per-kind reason bound, the latest warning of the
// object and the per-kind counter), fed in process with synthetic events of
// the shape the apiserver sends, and the memory the count memory holds at its
// cap. Never a timed test: figures for bench/README.md.
//
//   node --expose-gc bench/warning-events.ts [--events 200000] [--distinct 20000]
//
// Writes bench/results/warning-events/latest.json and prints a Markdown table.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Counter, Registry } from "@prometheus-io/client";
import {
  EventMemory,
  type LatestWarning,
  latestWarning,
  maxRememberedEvents,
  projectWarningEvent,
  ReasonBound,
} from "../src/core/events/warning-event.ts";

const { values } = parseArgs({
  options: { events: { type: "string", default: "200000" }, distinct: { type: "string", default: "20000" } },
});
const total = Number(values.events);
const distinct = Number(values.distinct);
const objects = 5_000;
const reasons = [
  "BackOff",
  "FailedMount",
  "FailedScheduling",
  "Unhealthy",
  "FailedCreate",
  "ProgressDeadlineExceeded",
];
const start = Date.parse("2026-12-07T04:00:00Z");

/** The watch line's object for occurrence `n` of event `i` (as an events.k8s.io/v1 Event with a series). */
function eventText(i: number, n: number): string {
  const object = i % objects;
  const first = new Date(start + i * 10).toISOString().replace("Z", "000Z");
  const last = new Date(start + i * 10 + n * 1000).toISOString().replace("Z", "000Z");
  return JSON.stringify({
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: {
      name: `widget-${object}.${i.toString(16)}`,
      namespace: `ns-${object % 50}`,
      uid: `00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`,
      resourceVersion: String(1000 + i * 100 + n),
      creationTimestamp: first.slice(0, 19) + "Z",
    },
    eventTime: first,
    series: n > 1 ? { count: n, lastObservedTime: last } : undefined,
    reportingController: "example.com/widget-operator",
    reportingInstance: "widget-operator-7c9f",
    action: "Reconcile",
    reason: reasons[i % reasons.length],
    regarding: {
      apiVersion: "example.com/v1",
      kind: "Widget",
      namespace: `ns-${object % 50}`,
      name: `widget-${object}`,
      uid: `11111111-0000-4000-8000-${object.toString(16).padStart(12, "0")}`,
    },
    note: `Back-off restarting failed container app in pod widget-${object}-5d8f (attempt ${n})`,
    type: "Warning",
  });
}

// Each distinct event arrives first, then again with its count raised, round after round.
const texts: string[] = [];
for (let n = 1; texts.length < total; n++)
  for (let i = 0; i < distinct && texts.length < total; i++) texts.push(eventText(i, n));

const registry = new Registry();
const counter = new Counter({
  name: "cr_warning_events_total",
  help: "Warning events",
  labelNames: ["group", "kind", "namespace", "reason"],
  registers: [registry],
});
const memory = new EventMemory(start / 1000 - 1);
const bound = new ReasonBound(10);
const latest = new Map<string, LatestWarning | undefined>();

const cpuBefore = process.cpuUsage();
const wallBefore = performance.now();
let counted = 0;
for (const text of texts) {
  const event = projectWarningEvent(JSON.parse(text));
  if (!event) continue;
  const occurrences = memory.occurrences(event, "");
  if (occurrences > 0) {
    counter.inc(
      {
        group: event.regarding.group,
        kind: event.regarding.kind,
        namespace: event.regarding.namespace,
        reason: bound.label(event.reason),
      },
      occurrences,
    );
    counted += occurrences;
  }
  const key = event.regarding.uid ?? "";
  latest.set(key, latestWarning(latest.get(key), event));
}
const cpu = process.cpuUsage(cpuBefore);
const wallMs = performance.now() - wallBefore;
const cpuSeconds = (cpu.user + cpu.system) / 1e6;

// The count memory at its cap: bytes per remembered event.
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const heapBefore = process.memoryUsage().heapUsed;
const full = new EventMemory(0);
for (let i = 0; i < maxRememberedEvents; i++) {
  const event = projectWarningEvent(JSON.parse(eventText(i, 1)));
  if (event) full.occurrences(event, "");
}
gc?.();
const bytesPerRemembered = gc ? (process.memoryUsage().heapUsed - heapBefore) / full.size : Number.NaN;

const result = {
  date: new Date().toISOString(),
  node: process.version,
  events: texts.length,
  distinctEvents: distinct,
  objects,
  occurrencesCounted: counted,
  cpuSeconds: Number(cpuSeconds.toFixed(3)),
  wallMs: Math.round(wallMs),
  eventsPerCpuSecond: Math.round(texts.length / cpuSeconds),
  counterSeries: (await registry.getMetricsAsJSON())[0]?.values.length ?? 0,
  remembered: memory.size,
  bytesPerRememberedEvent: Math.round(bytesPerRemembered),
  rememberedAtCapMiB: Number(((bytesPerRemembered * maxRememberedEvents) / 2 ** 20).toFixed(1)),
  loadAverage: (await import("node:os")).loadavg().map((l) => Number(l.toFixed(2))),
};
const dir = join(import.meta.dirname, "results", "warning-events");
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, "latest.json"), `${JSON.stringify(result, null, 2)}\n`);
console.log(
  `| events | distinct | CPU s | events per CPU s | bytes per remembered event | at the cap (${maxRememberedEvents}) |`,
);
console.log("| ---: | ---: | ---: | ---: | ---: | ---: |");
console.log(
  `| ${result.events} | ${distinct} | ${result.cpuSeconds} | ${result.eventsPerCpuSecond} | ${result.bytesPerRememberedEvent} | ${result.rememberedAtCapMiB} MiB |`,
);
