// The dashboards' panel budget: every panel query of the shipped dashboards,
// timed on a real Prometheus holding a fleet of widgets from the real
// exporter. A fleet of N widgets (1 in 10 not Ready, 1 in 100 behind its
// generation) on the test control plane, the exporter with its default set,
// Prometheus scraping it with the shipped rules (recording rules included)
// while 20 status patches a second churn the fleet; then each panel query
// runs as the panel asks it (instant for stats and tables, a range of
// --steps points for graphs), and, for panels on recorded series, as it would
// cost without the rules. Writes bench/results/panels/latest.{md,json}.
//
//   npm run bench:panels [-- --objects 10000 --minutes 5 --scrape-seconds 5 --steps 1000 --repeats 3]
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { DEFAULT_ALERT_OPTIONS, generateRuleGroups, renderRuleFile } from "../alerts/src/index.ts";
import { MATCH_ALL, OBJECT_UID, panelQueries, substituteVariables } from "../dashboards/src/index.ts";
import { installCrd } from "../test/cluster/index.ts";
import { prometheusPath } from "../test/prometheus/binaries.ts";
import { PrometheusServer } from "../test/prometheus/server.ts";
import { createNamespaces, type Fleet, growFleet, startBenchPlane, widgetPath } from "./lib/fleet.ts";
import { churn, Patcher, waitForSync } from "./lib/measure.ts";
import {
  expandRecords,
  type PanelTiming,
  type RangeWindow,
  slowest,
  timeQuery,
  timingTable,
} from "./lib/panel-timing.ts";
import { startOurs } from "./lib/proc.ts";
import { oursDefaultConfig } from "./lib/subjects.ts";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..");
const { values: flags } = parseArgs({
  options: {
    objects: { type: "string", default: "10000" },
    minutes: { type: "string", default: "5" },
    "scrape-seconds": { type: "string", default: "5" },
    steps: { type: "string", default: "1000" },
    repeats: { type: "string", default: "3" },
    /** The queries without the rules can take minutes at fleet size: fewer runs, and Prometheus' timeout. */
    "raw-repeats": { type: "string", default: "1" },
    "timeout-seconds": { type: "string", default: "120" },
    out: { type: "string", default: join(here, "results", "panels") },
  },
});
const objects = Number(flags.objects);
const minutes = Number(flags.minutes);
const scrapeSeconds = Number(flags["scrape-seconds"]);
const steps = Number(flags.steps);
const repeats = Number(flags.repeats);
const rawRepeats = Number(flags["raw-repeats"]);
const timeoutSeconds = Number(flags["timeout-seconds"]);
const JOB = "cr-status-exporter";

const log = (line: string): void => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

/** The v1 overview's "Ready over time": one row per object, kept as the reference of what topk avoids. */
const V1_READY_OVER_TIME =
  'max by (namespace, kind, name) ((cr_condition{cluster=~"$cluster", job=~"$job", namespace=~"$namespace", kind=~"$kind", type="Ready", status="True"} == 1) * 2' +
  ' or (cr_condition{cluster=~"$cluster", job=~"$job", namespace=~"$namespace", kind=~"$kind", type="Ready", status="Unknown"} == 1)' +
  ' or (cr_condition{cluster=~"$cluster", job=~"$job", namespace=~"$namespace", kind=~"$kind", type="Ready", status="False"} == 1) * 0)';

async function main(): Promise<void> {
  log(
    `${objects} widgets, ${minutes} min of ${scrapeSeconds} s scrapes, ranges of ${steps} steps, ${repeats} runs each`,
  );
  const load = [loadavg()[0] ?? 0];
  const plane = await startBenchPlane();
  const patcher = new Patcher(plane.server, plane.caPem, plane.admin.token);
  const stops: (() => Promise<void>)[] = [];
  try {
    await installCrd(plane.admin.rest, "widgets");
    const fleet: Fleet = { namespaces: await createNamespaces(plane), objects: [], createSeconds: {} };
    await growFleet(plane.admin.rest, fleet, objects, log);
    // 1 in 100 widgets gets a spec change its controller does not observe: behind its generation.
    for (let i = 0; i < objects; i += 100) {
      const [namespace, name] = fleet.objects[i] as [string, string];
      await plane.admin.rest.patch(widgetPath(namespace, name), { spec: { size: 4 } }, "merge");
    }
    const exporter = await startOurs(
      "default",
      repo,
      plane.kubeconfigPath,
      join(plane.directory, "panels"),
      oursDefaultConfig(),
    );
    stops.push(() => exporter.stop());
    const sync = await waitForSync(exporter, objects, Math.max(120_000, objects * 20));
    log(`exporter synced in ${sync.seconds.toFixed(1)} s`);
    const rules = join(plane.directory, "rules.yaml");
    writeFileSync(
      rules,
      renderRuleFile(generateRuleGroups({ ...DEFAULT_ALERT_OPTIONS, selector: `job="${JOB}"` })),
    );
    const prometheus = await PrometheusServer.start({
      scrape: [{ job: JOB, targets: [new URL(exporter.metricsUrl).host] }],
      ruleFiles: [rules],
      scrapeInterval: `${scrapeSeconds}s`,
      evaluationInterval: `${scrapeSeconds}s`,
      startTimeoutMs: 60_000,
    });
    stops.push(() => prometheus.stop());
    log(`collecting ${minutes} min of samples while 20 status patches a second churn the fleet`);
    const churned = await churn(patcher, fleet, 20, minutes * 60, { flip: 0 });
    const end = Date.now() / 1000;
    const seen = await count(prometheus.url, `count(cr_status{job="${JOB}"})`);
    const series = await count(prometheus.url, `count({job="${JOB}"})`);
    if (seen < objects)
      throw new Error(`Prometheus holds ${seen} of ${objects} objects:\n${prometheus.logTail()}`);
    const window: RangeWindow = { start: end - (minutes * 60 - 2 * scrapeSeconds), end, steps };
    const records = new Map(
      generateRuleGroups({ ...DEFAULT_ALERT_OPTIONS, selector: `job="${JOB}"` }).flatMap((g) =>
        g.rules.flatMap((r) => ("record" in r ? [[r.record, r.expr] as const] : [])),
      ),
    );
    const rateInterval = `${4 * scrapeSeconds}s`;
    // The drill-down shows one object (a not-Ready one, behind its generation: widget 0).
    const [namespace, name] = fleet.objects[0] as [string, string];
    const oneObject = { ...MATCH_ALL, namespace, kind: "Widget", name };
    const queries = [
      ...panelQueries({ rateInterval, values: { [OBJECT_UID]: oneObject } }),
      {
        dashboard: "v1",
        panelId: 0,
        panel: "Ready over time, one row per object (count() of it, not transferred)",
        refId: "A",
        expr: V1_READY_OVER_TIME,
        query: `count(${substituteVariables(V1_READY_OVER_TIME)})`,
        instant: false,
        optIn: [],
        noValue: undefined,
      },
    ];
    const timings: PanelTiming[] = [];
    for (const q of queries) {
      log(`${q.dashboard} / ${q.panel} / ${q.refId}`);
      const raw = expandRecords(q.query, records);
      const time = (expr: string, at: number | RangeWindow, runs: number) =>
        timeQuery(prometheus.url, expr, at, runs, timeoutSeconds);
      timings.push({
        query: q,
        instant: await time(q.query, end, repeats),
        ...(q.instant
          ? {}
          : { range: await time(q.query, window, q.dashboard === "v1" ? rawRepeats : repeats) }),
        ...(raw === q.query
          ? {}
          : {
              raw: {
                instant: await time(raw, end, rawRepeats),
                ...(q.instant ? {} : { range: await time(raw, window, rawRepeats) }),
              },
            }),
      });
    }
    load.push(loadavg()[0] ?? 0);
    const version = execFileSync(prometheusPath(), ["--version"], { encoding: "utf8" }).split("\n")[0];
    const context = {
      objects,
      series,
      minutes,
      scrapeSeconds,
      steps,
      repeats,
      rawRepeats,
      timeoutSeconds,
      rateInterval,
      patches: churned.patches,
      prometheus: version,
      cpus: `${cpus().length} × ${cpus()[0]?.model ?? "unknown"}`,
      loadAverage: load.map((l) => l.toFixed(1)).join(" → "),
      at: new Date().toISOString(),
    };
    write(context, timings);
  } finally {
    for (const stop of stops.reverse()) await stop();
    patcher.close();
    await plane.stop();
  }
}

/**
 * The value of a count query, with the benchmark's query timeout: counting every
 * series of a 10k fleet can take longer than the test server's 10 s client limit
 * on a loaded machine.
 */
async function count(url: string, expr: string): Promise<number> {
  const response = await fetch(`${url}/api/v1/query`, {
    method: "POST",
    body: new URLSearchParams({ query: expr, timeout: `${timeoutSeconds}s` }),
    signal: AbortSignal.timeout((timeoutSeconds + 60) * 1000),
  });
  const body = (await response.json()) as {
    status: string;
    error?: string;
    data?: { result: { value: [number, string] }[] };
  };
  if (body.status !== "success") throw new Error(`${expr}: ${body.error}`);
  return Number(body.data?.result[0]?.value[1] ?? 0);
}

function write(context: Record<string, unknown>, timings: PanelTiming[]): void {
  mkdirSync(flags.out, { recursive: true });
  writeFileSync(join(flags.out, "latest.json"), `${JSON.stringify({ context, timings }, null, 2)}\n`);
  const top = slowest(
    timings.filter((t) => t.query.dashboard !== "v1"),
    5,
  ).map((t) => `${t.query.dashboard} / ${t.query.panel} (${(t.range ?? t.instant).evalMs.toFixed(1)} ms)`);
  const md = [
    "# Dashboard panel budget",
    "",
    `Written by \`npm run bench:panels\` (bench/panels.ts) at ${context.at}: ${context.objects} widgets (1 in 10 not Ready,`,
    `1 in 100 behind its generation) on the test control plane, the exporter with its default set (${context.series} series`,
    `on its target), ${context.prometheus}, scraping every ${context.scrapeSeconds} s with the shipped rules for`,
    `${context.minutes} min while ${context.patches} status patches churned the fleet. Instant queries at the end; range`,
    `queries over the collected window in ${context.steps} steps (what a ${context.steps}-point Grafana panel asks), with`,
    `$__rate_interval = ${context.rateInterval}. Medians of ${context.repeats} runs; eval = Prometheus' evalTotalTime, wall =`,
    `the HTTP call as the panel makes it. "Without rules": the same query with each recorded series replaced by its`,
    `rule's expression (${context.rawRepeats} run, as the v1 reference row; Prometheus' timeout ${context.timeoutSeconds} s and`,
    `its default sample limit apply). ${context.cpus}, load average ${context.loadAverage} (a shared machine).`,
    "",
    `Slowest as the panels ask: ${top.join("; ")}.`,
    "",
    timingTable(timings),
    "",
  ].join("\n");
  writeFileSync(join(flags.out, "latest.md"), md);
  console.log(md);
}

await main();
