// The soak: the exporter (`node src/main.ts`, its default families) watching
// 1,000 widgets on a test control plane while their status is rewritten at
// 100 writes/s, /metrics scraped every 15 s as Prometheus would, and its RSS
// sampled every few seconds. Passes when the RSS floor after the warm-up grows
// less than 5 % (bench/lib/soak-report.ts), the write rate was reached (95 %)
// and every write accepted, and the exporter still holds every object and saw
// no watch error.
//
//   npm run soak -- [--minutes 60] [--rate 100] [--objects 1000] [--sample-seconds 10]
//
// Writes bench/results/soak/<date>-<minutes>m.json and .svg, and latest.md.
// Exits 0 on a pass, 1 on a failure, 2 when the run was too short to judge
// growth after the warm-up (a fifth of the run, at least 5 minutes) but all
// else held.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { installCrd } from "../test/cluster/fixtures.ts";
import { ControlPlane } from "../test/cluster/index.ts";
import { createNamespaces, type Fleet, growFleet, widgetPath, widgetStatus } from "./lib/fleet.ts";
import { Patcher, waitForSync } from "./lib/measure.ts";
import { sampleProc, startOurs } from "./lib/proc.ts";
import { judgeSoak, type SoakSample, soakChart } from "./lib/soak-report.ts";
import { oursDefaultConfig } from "./lib/subjects.ts";

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "60" },
    rate: { type: "string", default: "100" },
    objects: { type: "string", default: "1000" },
    "sample-seconds": { type: "string", default: "10" },
  },
});
const minutes = Number(values.minutes);
const rate = Number(values.rate);
const objects = Number(values.objects);
const sampleSeconds = Number(values["sample-seconds"]);
for (const [name, value] of Object.entries({ minutes, rate, objects, sampleSeconds })) {
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`--${name}: expected a positive number, got ${value}`);
}
const durationSeconds = minutes * 60;
const repo = join(import.meta.dirname, "..");
const log = (line: string): void => console.error(`# ${line}`);

interface Writes {
  sent: number;
  ok: number;
  failed: number;
  lastError: string | undefined;
}

/** Status rewrites of random objects at `rate`/s until `signal` aborts, at most 256 in flight. */
async function write(patcher: Patcher, fleet: Fleet, signal: AbortSignal, writes: Writes): Promise<void> {
  const started = performance.now();
  const inflight = new Set<Promise<void>>();
  let flip = 0;
  while (!signal.aborted) {
    const due = Math.floor(((performance.now() - started) / 1000) * rate);
    while (writes.sent < due && inflight.size < 256) {
      writes.sent++;
      const index = Math.floor(Math.random() * fleet.objects.length);
      const [namespace, name] = fleet.objects[index] as [string, string];
      const work = patcher
        .patchStatus(widgetPath(namespace, name, true), widgetStatus(index, 1, ++flip))
        .then(
          () => {
            writes.ok++;
          },
          (error: unknown) => {
            writes.failed++;
            writes.lastError = String(error).slice(0, 300);
          },
        );
      inflight.add(work);
      void work.finally(() => inflight.delete(work));
    }
    await sleep(10);
  }
  await Promise.all([...inflight]);
}

/** Scrapes every `everyMs` as Prometheus would; returns the number of scrapes and of failures. */
async function scrapeLoop(url: string, everyMs: number, signal: AbortSignal) {
  const result = { scrapes: 0, failed: 0, lastBytes: 0 };
  while (!signal.aborted) {
    try {
      const text = await (await fetch(url)).text();
      result.scrapes++;
      result.lastBytes = text.length;
    } catch {
      result.failed++;
    }
    await sleep(everyMs, undefined, { signal }).catch(() => undefined);
  }
  return result;
}

function sum(text: string, family: string): number {
  return text
    .split("\n")
    .filter((line) => line.startsWith(`${family}{`) || line.startsWith(`${family} `))
    .reduce((total, line) => total + Number(line.slice(line.lastIndexOf(" ") + 1)), 0);
}

const plane = await ControlPlane.start();
const dir = mkdtempSync(join(tmpdir(), "cr-soak-"));
let exitCode = 1;
try {
  log(`control plane ready in ${plane.startMs} ms`);
  await installCrd(plane.admin.rest, "widgets");
  const fleet: Fleet = { namespaces: await createNamespaces(plane), objects: [], createSeconds: {} };
  await growFleet(plane.admin.rest, fleet, objects, log);
  const ours = await startOurs("default", repo, plane.kubeconfigPath, dir, oursDefaultConfig());
  try {
    const sync = await waitForSync(ours, objects, 120_000);
    log(
      `exporter synced ${objects} objects in ${sync.seconds.toFixed(1)} s; soaking ${minutes} min at ${rate} writes/s`,
    );
    const patcher = new Patcher(plane.server, plane.caPem, plane.admin.token, 16);
    const stop = new AbortController();
    const writes: Writes = { sent: 0, ok: 0, failed: 0, lastError: undefined };
    const samples: SoakSample[] = [];
    const started = performance.now();
    const writing = write(patcher, fleet, stop.signal, writes);
    const scraping = scrapeLoop(ours.metricsUrl, 15_000, stop.signal);
    let lastPrint = 0;
    while ((performance.now() - started) / 1000 < durationSeconds) {
      const t = (performance.now() - started) / 1000;
      const proc = sampleProc(ours.pid);
      samples.push({ t: Math.round(t * 10) / 10, rssBytes: proc.rssBytes, cpuSeconds: proc.cpuSeconds });
      if (t - lastPrint >= 60) {
        lastPrint = t;
        log(
          `${(t / 60).toFixed(1)} min: RSS ${(proc.rssBytes / 1048576).toFixed(1)} MiB, ${writes.ok} writes (${writes.failed} failed)`,
        );
      }
      await sleep(sampleSeconds * 1000);
    }
    stop.abort();
    await writing;
    const scrapes = await scraping;
    patcher.close();
    const elapsed = (performance.now() - started) / 1000;
    const final = await (await fetch(ours.metricsUrl)).text();
    const checks = {
      objectsHeld: sum(final, "cr_exporter_resource_objects"),
      watchErrors: sum(final, "cr_exporter_watch_errors_total"),
      handlerErrors: sum(final, "cr_exporter_handler_errors_total"),
      statusUpdatesCounted: sum(final, "cr_status_updates_total"),
    };
    const judgement = judgeSoak(samples, durationSeconds);
    const achievedRate = Math.round((writes.ok / elapsed) * 10) / 10;
    // A run that did not reach its load says nothing about that load.
    const rateReached = achievedRate >= 0.95 * rate;
    const healthy =
      rateReached &&
      writes.failed === 0 &&
      scrapes.failed === 0 &&
      checks.objectsHeld === objects &&
      checks.watchErrors === 0 &&
      checks.handlerErrors === 0;
    const judged = "pass" in judgement ? judgement : undefined;
    const verdict = !healthy || judged?.pass === false ? "FAIL" : judged ? "pass" : "growth not judged";
    const pass = verdict === "pass";
    const stamp = new Date().toISOString().slice(0, 16).replace(":", "");
    const name = `${stamp}-${minutes}m`;
    const result = {
      date: new Date().toISOString(),
      node: process.version,
      settings: { minutes, rate, objects, sampleSeconds, scrapeSeconds: 15 },
      elapsedSeconds: Math.round(elapsed),
      writes: { ...writes, perSecond: achievedRate, rateReached },
      scrapes,
      checks,
      judgement,
      verdict,
      cpuSeconds: samples.at(-1)?.cpuSeconds,
      samples,
    };
    const out = join(repo, "bench", "results", "soak");
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, `${name}.json`), `${JSON.stringify(result, null, 2)}\n`);
    const title = `RSS of the exporter: ${objects} widgets, ${rate} writes/s, ${minutes} min (${verdict})`;
    writeFileSync(join(out, `${name}.svg`), soakChart(samples, judgement, title));
    const summary = [
      "# Soak",
      "",
      `Latest run: \`npm run soak -- --minutes ${minutes}\` on ${result.date.slice(0, 10)}, Node.js ${process.version}: ` +
        `${objects} widgets, ${writes.ok} status writes (${achievedRate}/s of ${rate}/s, ${writes.failed} failed), ` +
        `${scrapes.scrapes} scrapes of ${(scrapes.lastBytes / 1048576).toFixed(1)} MiB, RSS sampled every ${sampleSeconds} s.`,
      "",
      `![RSS over time](${name}.svg)`,
      "",
      "| | |",
      "| --- | --- |",
      `| result | **${verdict}** |`,
      `| warm-up | ${judgement.warmupSeconds} s |`,
      `| load reached (≥ 95 % of ${rate}/s) | ${rateReached ? "yes" : "no"}: ${achievedRate}/s |`,
      ...(judged
        ? [
            `| RSS floor after warm-up (lowest of the first tenth) | ${judged.baselineMiB} MiB (median ${judged.baselineMedianMiB}) |`,
            `| RSS floor at the end (lowest of the last tenth) | ${judged.endMiB} MiB (median ${judged.endMedianMiB}) |`,
            `| floor growth (limit ${judged.limitPercent} %) | ${judged.growthPercent} % |`,
            `| slope after warm-up | ${judged.slopeMiBPerHour} MiB/h |`,
            `| highest RSS after warm-up | ${judged.maxAfterWarmupMiB} MiB |`,
          ]
        : [`| growth | not judged: ${"notJudged" in judgement ? judgement.notJudged : ""} |`]),
      `| RSS at the start and at the end | ${((samples[0]?.rssBytes ?? 0) / 1048576) | 0} MiB, ${((samples.at(-1)?.rssBytes ?? 0) / 1048576) | 0} MiB |`,
      `| objects held at the end | ${checks.objectsHeld} of ${objects} |`,
      `| watch errors, handler errors | ${checks.watchErrors}, ${checks.handlerErrors} |`,
      `| CPU | ${result.cpuSeconds?.toFixed(0)} s in ${result.elapsedSeconds} s |`,
      "",
      `Raw samples: [${name}.json](${name}.json).`,
      "",
    ].join("\n");
    writeFileSync(join(out, "latest.md"), summary);
    console.log(summary);
    exitCode = pass ? 0 : verdict === "FAIL" ? 1 : 2;
  } finally {
    await ours.stop();
  }
} finally {
  await plane.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(exitCode);
