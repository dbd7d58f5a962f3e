// The figures the docs quote in their prose from the benchmarks — memory and
// scrape size at 50,000 objects, idle memory, the ratios against
// kube-state-metrics, the status page's timings — read out of the docs and
// compared with the results they come from (bench/results/latest.json,
// bench/results/status-page/50000.json, bench/results/join-directory/50000.json,
// bench/results/otlp-metrics/latest.json), within the rounding the doc quotes
// them at. A new run that changes a figure fails here until the prose says
// so, and so does prose edited without a run. (docs/sizing.md's generated
// table is sizing-doc.test.ts's.)
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { measured, type RunResult, type SubjectResult } from "../../bench/lib/results.ts";

const root = new URL("../../", import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), "utf8");
const MiB = 2 ** 20;

interface StatusPageRequest {
  path: string;
  bytes: number;
  lastByteMs: number;
  maxLastByteMs: number;
  maxLoopStallMs: number;
}

interface StatusPageRun {
  objects: number;
  notReady: number;
  heapBytesPerObject: { oneFlipInStore: number; ringField: number; ringFullCappedText: number };
  requests: StatusPageRequest[];
}

interface JoinDirectoryRun {
  objects: number;
  heapBytesPerEntry: { plain: number; ownerAndSource: number };
  heapBytesPerOwnObject: number;
  heapBytesPerForeignObjectWithoutJoins: number;
  cpuMicrosPerEvent: { foreignWithoutJoins: number; foreignWithJoins: number; own: number };
  loadAverage: { before: string[]; after: string[] };
}

/** One case of bench/otlp-metrics.ts: an export (or the scrape it is compared with), medians of its runs. */
interface OtlpRow {
  objects: number;
  protocol: string;
  compression: "none" | "gzip";
  points: number;
  requests: number;
  rawBytes: number;
  bytes: number;
  wallMs: number;
  cpuMs: number;
  stallMs: number;
  serializeMs: number;
}

interface OtlpRun {
  runs: { objects: number; loadBefore: number; loadAfter: number; rows: OtlpRow[] }[];
}

interface Results {
  latest: { run: RunResult };
  statusPage: StatusPageRun;
  joinDirectory: JoinDirectoryRun;
  otlp: OtlpRun;
}

function results(): Results {
  return {
    latest: JSON.parse(read("bench/results/latest.json")),
    statusPage: JSON.parse(read("bench/results/status-page/50000.json")),
    joinDirectory: JSON.parse(read("bench/results/join-directory/50000.json")),
    otlp: JSON.parse(read("bench/results/otlp-metrics/latest.json")),
  };
}

function otlpRow(run: OtlpRun, objects: number, protocol: string, compression: "none" | "gzip"): OtlpRow {
  const found = run.runs
    .find((r) => r.objects === objects)
    ?.rows.find((r) => r.protocol === protocol && r.compression === compression);
  assert.ok(found, `bench/results/otlp-metrics/latest.json: no ${protocol} ${compression} at ${objects}`);
  return found;
}

/**
 * A figure quoted in a doc: `pattern` (matched against the doc with its
 * whitespace, line breaks included, read as single spaces) captures the quoted
 * numbers, `values` are what the results say, in the doc's unit. A quoted
 * number agrees when the value rounds to it at the precision it is quoted at
 * (its decimals, or `step` for a figure rounded to tens).
 */
interface Figure {
  doc: string;
  what: string;
  pattern: RegExp;
  values: number[];
  step?: number;
}

function subject(run: RunResult, objects: number, id: "ksm" | "equal" | "default"): SubjectResult {
  const size = run.sizes.find((s) => s.objects === objects);
  const found = measured(size?.subjects[id]);
  assert.ok(found, `bench/results/latest.json: no ${id} subject at ${objects} objects`);
  return found;
}

function request(run: StatusPageRun, path: string): StatusPageRequest {
  const found = run.requests.find((r) => r.path === path);
  assert.ok(found, `bench/results/status-page/50000.json: no request ${path}`);
  return found;
}

/** The longest the event loop was held while the status page benchmark served any request. */
const longestStall = (run: StatusPageRun): number => Math.max(...run.requests.map((r) => r.maxLoopStallMs));

function figures({ latest: { run }, statusPage, joinDirectory: joins, otlp }: Results): Figure[] {
  const idle = measured(run.idle);
  assert.ok(idle, "bench/results/latest.json: no idle subject");
  const idleMiB = idle.rssSettledBytes / MiB;
  const ksm = subject(run, 50_000, "ksm");
  const equal = subject(run, 50_000, "equal");
  const ours = subject(run, 50_000, "default");
  const equal10k = subject(run, 10_000, "equal");
  const ours10k = subject(run, 10_000, "default");
  // "Where our RSS goes": the heap and the RSS of the same diagnostic report, after churn.
  const heapMiB = (s: SubjectResult) => (s.memoryAfterChurn?.heap.committed ?? Number.NaN) / MiB;
  const breakdownRssMiB = (s: SubjectResult) => (s.memoryAfterChurn?.rssBytes ?? Number.NaN) / MiB;
  const ring = statusPage.heapBytesPerObject;
  const first = request(statusPage, "/");
  const otlpAt = (protocol: string, compression: "none" | "gzip") =>
    otlpRow(otlp, 50_000, protocol, compression);
  const load = (objects: number) => otlp.runs.find((r) => r.objects === objects);
  return [
    {
      doc: "docs/otlp-metrics.md",
      what: "one export at 50,000: points, MiB, CPU against the scrape's (plain, gzip), stalls, http/json",
      pattern:
        /\(([\d,]+) points, ([\d.]+) MiB of protobuf\), an http\/protobuf export took ([\d,]+) CPU ms against ([\d,]+) ms for a `\/metrics` scrape of the same store in the same run \(([\d,]+) against ([\d,]+) ms with gzip\), and held the event loop at most ([\d.]+) ms \(([\d.]+) ms with gzip\)\. An http\/json export of the same store took ([\d,]+) CPU ms and stalled the event loop up to ([\d.]+) ms/,
      values: [
        otlpAt("http/protobuf", "none").points,
        otlpAt("http/protobuf", "none").rawBytes / MiB,
        otlpAt("http/protobuf", "none").cpuMs,
        otlpAt("/metrics scrape", "none").cpuMs,
        otlpAt("http/protobuf", "gzip").cpuMs,
        otlpAt("/metrics scrape", "gzip").cpuMs,
        otlpAt("http/protobuf", "none").stallMs,
        otlpAt("http/protobuf", "gzip").stallMs,
        otlpAt("http/json", "none").cpuMs,
        otlpAt("http/json", "none").stallMs,
      ],
    },
    {
      doc: "bench/README.md",
      what: "the OTLP run's load averages",
      pattern:
        /\(load average ([\d.]+) → ([\d.]+) during the 10k run, ([\d.]+) → ([\d.]+) during the 50k\s+run;/,
      values: [
        load(10_000)?.loadBefore ?? Number.NaN,
        load(10_000)?.loadAfter ?? Number.NaN,
        load(50_000)?.loadBefore ?? Number.NaN,
        load(50_000)?.loadAfter ?? Number.NaN,
      ],
    },
    {
      doc: "bench/README.md",
      what: "http/protobuf at 50,000 against the scrape: CPU, stalls",
      pattern:
        /without gzip the export costs (\d+) against (\d+) CPU ms for the plain\s+scrape of the same store \(([\d.]+)×:[^)]*; ([\d.]+)× the gzip'd scrape,[^)]*\), stall ([\d.]+) ms \(met\)\. With gzip it costs ([\d.]+) times the gzip'd scrape \((\d+)\s+against (\d+) ms\): \*\*met\*\*, stall ([\d.]+) ms/,
      values: [
        otlpAt("http/protobuf", "none").cpuMs,
        otlpAt("/metrics scrape", "none").cpuMs,
        otlpAt("http/protobuf", "none").cpuMs / otlpAt("/metrics scrape", "none").cpuMs,
        otlpAt("http/protobuf", "none").cpuMs / otlpAt("/metrics scrape", "gzip").cpuMs,
        otlpAt("http/protobuf", "none").stallMs,
        otlpAt("http/protobuf", "gzip").cpuMs / otlpAt("/metrics scrape", "gzip").cpuMs,
        otlpAt("http/protobuf", "gzip").cpuMs,
        otlpAt("/metrics scrape", "gzip").cpuMs,
        otlpAt("http/protobuf", "gzip").stallMs,
      ],
    },
    {
      doc: "docs/install.md",
      what: "one process at 50,000 widgets: RSS after churn, after sync, scrape size (default set)",
      pattern:
        /at 50,000 widgets it needs about (\d+) MiB after two minutes of status changes \((\d+) MiB right after the initial list\) and answers a scrape of about (\d+) MiB/,
      values: [ours.rssAfterChurnBytes / MiB, ours.rssAfterSyncBytes / MiB, ours.scrape.bytes / MiB],
    },
    {
      doc: "docs/sizing.md",
      what: "idle memory",
      pattern: /Memory\*\* starts at about (\d+) MiB/,
      values: [idleMiB],
    },
    {
      doc: "docs/sizing.md",
      what: "idle memory, in what a process holds",
      pattern: /\(the idle (\d+) MiB\)/,
      values: [idleMiB],
    },
    {
      doc: "docs/sizing.md",
      what: "idle memory, under sharding",
      pattern: /a shard needs the idle memory \(about (\d+) MiB\)/,
      values: [idleMiB],
    },
    {
      doc: "docs/sizing.md",
      what: "bytes per series in a scrape (default set, 50,000)",
      pattern: /roughly the series count times (\d+) bytes/,
      values: [ours.scrape.bytesPerSeries],
    },
    {
      doc: "docs/sizing.md",
      what: "V8 heap and RSS after churn at 10,000 (equal information, default set; Where our RSS goes)",
      pattern:
        /at 10,000 widgets after 120 s of churn the V8 heap was (\d+) MiB \(equal information\) and (\d+) MiB \(default set\) of an RSS of (\d+) and (\d+) MiB/,
      values: [heapMiB(equal10k), heapMiB(ours10k), breakdownRssMiB(equal10k), breakdownRssMiB(ours10k)],
    },
    {
      doc: "docs/sizing.md",
      what: "RSS after churn at 50,000, per object, and /metrics per object (equal information, default set)",
      pattern:
        /at 50,000 widgets the RSS was (\d+) and (\d+) MiB \(([\d.]+) and ([\d.]+) KiB per object, with ([\d.]+) and ([\d.]+) KB of `\/metrics` per object\)/,
      values: [
        equal.rssAfterChurnBytes / MiB,
        ours.rssAfterChurnBytes / MiB,
        equal.rssAfterChurnBytes / 1024 / 50_000,
        ours.rssAfterChurnBytes / 1024 / 50_000,
        equal.scrape.bytes / 1000 / 50_000,
        ours.scrape.bytes / 1000 / 50_000,
      ],
    },
    {
      doc: "docs/sizing.md",
      what: "the status page's ring: unchanged object, full ring",
      pattern: /adds (\d+) bytes per object that has not changed while watched and at most ([\d.]+) KB/,
      values: [ring.ringField, ring.ringFullCappedText / 1000],
    },
    {
      doc: "docs/sizing.md",
      what: "the store's growth at an object's first change",
      pattern: /first change grows the store by about (\d+) bytes/,
      values: [ring.oneFlipInStore],
      step: 10,
    },
    {
      doc: "README.md",
      what: "series per object, equal information / KSM, default set",
      pattern:
        /\((\d+) series per object against its (\d+)\).* with its default set \((\d+) series per object\)/,
      values: [equal.scrape.seriesPerObject, ksm.scrape.seriesPerObject, ours.scrape.seriesPerObject],
    },
    {
      doc: "README.md",
      what: "at 50,000, equal information / KSM: RSS after sync, sync, scrape p50 plain and gzip, CPU; default set / KSM: scrape p50 plain and gzip",
      pattern:
        /it uses ([\d.]+)× its memory after sync, syncs in ([\d.]+)× the time, answers a scrape in ([\d.]+)× \(plain\) and ([\d.]+)× \(gzip\) and spends ([\d.]+)× the CPU; with its default set \(20 series per object\) a scrape takes ([\d.]+)× \(plain\) and ([\d.]+)× \(gzip\)/,
      values: [
        equal.rssAfterSyncBytes / ksm.rssAfterSyncBytes,
        equal.syncSeconds / ksm.syncSeconds,
        equal.scrape.p50Ms / ksm.scrape.p50Ms,
        equal.scrape.gzipP50Ms / ksm.scrape.gzipP50Ms,
        equal.cpuTotalSeconds / ksm.cpuTotalSeconds,
        ours.scrape.p50Ms / ksm.scrape.p50Ms,
        ours.scrape.gzipP50Ms / ksm.scrape.gzipP50Ms,
      ],
    },
    {
      doc: "bench/README.md",
      what: "steady state at 50,000: RSS after churn / KSM, ours and KSM's, after sync / KSM",
      pattern:
        /RSS after churn \*\*([\d.]+)× KSM at equal information\*\* \((\d+) MiB against (\d+)\) and \*\*([\d.]+)× with the default set\*\* \((\d+) MiB\), after sync ([\d.]+)× and ([\d.]+)×/,
      values: [
        equal.rssAfterChurnBytes / ksm.rssAfterChurnBytes,
        equal.rssAfterChurnBytes / MiB,
        ksm.rssAfterChurnBytes / MiB,
        ours.rssAfterChurnBytes / ksm.rssAfterChurnBytes,
        ours.rssAfterChurnBytes / MiB,
        equal.rssAfterSyncBytes / ksm.rssAfterSyncBytes,
        ours.rssAfterSyncBytes / ksm.rssAfterSyncBytes,
      ],
    },
    {
      doc: "docs/api.md",
      what: "the status page benchmark's fleet",
      pattern: /Measured with `npm run bench:status-page` \(([\d,]+) widgets/,
      values: [statusPage.objects],
    },
    {
      doc: "docs/api.md",
      what: "the ring: unchanged object, full ring, an object's first change",
      pattern:
        /the ring field costs (\d+) bytes per object .* a full ring whose every message and reason was cut ([\d.]+) KB; an object's first change grows the store by about (\d+) bytes/,
      values: [ring.ringField, ring.ringFullCappedText / 1000, ring.oneFlipInStore],
      step: 10,
    },
    {
      doc: "docs/api.md",
      what: "the first screen: median, slowest, bytes",
      pattern: /is answered in (\d+) ms \(median, slowest of 9 (\d+) ms\) and is (\d+) KB/,
      values: [first.lastByteMs, first.maxLastByteMs, first.bytes / 1000],
    },
    {
      doc: "docs/api.md",
      what: "the objects API and the summary: medians",
      pattern: /`\/api\/v1\/objects\?notReady=true&limit=100` in (\d+) ms, `\/api\/v1\/summary` in (\d+) ms/,
      values: [
        request(statusPage, "/api/v1/objects?notReady=true&limit=100").lastByteMs,
        request(statusPage, "/api/v1/summary").lastByteMs,
      ],
    },
    {
      doc: "docs/api.md",
      what: "the longest stall of the event loop",
      pattern: /no request holds the event loop for more than (\d+) ms/,
      values: [longestStall(statusPage)],
    },
    {
      doc: "docs/tracing.md",
      what: "joinAcrossShards at 50,000: heap per directory entry (plain, owner and source), per own object; CPU per event of another shard (on, off), of its own",
      pattern:
        /an entry takes (\d+) bytes of heap \((\d+) with an owner and a source named\) against ([\d,]+) for an object the shard exports; another shard's watch event costs ([\d.]+) µs of CPU \(parsed, projected, entered\) instead of ([\d.]+) µs \(its uid read from the text and passed over\), against ([\d.]+) µs for one of the shard's own/,
      values: [
        joins.heapBytesPerEntry.plain,
        joins.heapBytesPerEntry.ownerAndSource,
        joins.heapBytesPerOwnObject,
        joins.cpuMicrosPerEvent.foreignWithJoins,
        joins.cpuMicrosPerEvent.foreignWithoutJoins,
        joins.cpuMicrosPerEvent.own,
      ],
    },
    {
      doc: "bench/README.md",
      what: "joinAcrossShards at 50,000: the tables of heap per object and CPU per event",
      pattern:
        /\| directory entry, another shard's object \(no owner, no source\) \| (\d+) B \| \| directory entry with owner and source named \| (\d+) B \| \| another shard's object, option off \(control\) \| (\d+) B \| \| the shard's own object \(store entry, default series, trace record\) \| ([\d,]+) B \|.*\| another shard's, option off \(uid read, passed over\) \| ([\d.]+) µs \| \| another shard's, option on \(parsed, projected, entered\) \| ([\d.]+) µs \| \| the shard's own \(parsed, whole ingest, spans\) \| ([\d.]+) µs \|/,
      values: [
        joins.heapBytesPerEntry.plain,
        joins.heapBytesPerEntry.ownerAndSource,
        joins.heapBytesPerForeignObjectWithoutJoins,
        joins.heapBytesPerOwnObject,
        joins.cpuMicrosPerEvent.foreignWithoutJoins,
        joins.cpuMicrosPerEvent.foreignWithJoins,
        joins.cpuMicrosPerEvent.own,
      ],
    },
    {
      doc: "bench/README.md",
      what: "the status page benchmark's fleet",
      pattern: /At ([\d,]+) objects \(([\d,]+) not Ready;/,
      values: [statusPage.objects, statusPage.notReady],
    },
  ];
}

const quotedNumber = (text: string): number => Number(text.replaceAll(",", ""));

/** Whether `value` rounds to `quoted` at the precision it is written with (or to the nearest `step`). */
function agrees(quoted: string, value: number, step?: number): boolean {
  const decimals = quoted.split(".")[1]?.length ?? 0;
  const unit = step && decimals === 0 ? step : 10 ** -decimals;
  return Math.abs(quotedNumber(quoted) - value) <= unit / 2 + 1e-9;
}

/** What in `docs` (path → text) disagrees with `list`: each a line naming the doc, the figure, quoted and measured. */
function disagreements(docs: Map<string, string>, list: Figure[]): string[] {
  const out: string[] = [];
  for (const figure of list) {
    const text = (docs.get(figure.doc) ?? read(figure.doc)).replace(/\s+/g, " ");
    const match = figure.pattern.exec(text);
    if (!match) {
      out.push(`${figure.doc}: ${figure.what}: the sentence ${figure.pattern} is gone`);
      continue;
    }
    const quoted = match.slice(1);
    assert.equal(quoted.length, figure.values.length, `${figure.what}: one value per quoted number`);
    const wrong = quoted.flatMap((q, i) => {
      const value = figure.values[i] as number;
      return agrees(q ?? "", value, figure.step) ? [] : [`quoted ${q}, measured ${value.toFixed(3)}`];
    });
    if (wrong.length > 0) out.push(`${figure.doc}: ${figure.what}: ${wrong.join("; ")}`);
  }
  return out;
}

const docs = (): Map<string, string> =>
  new Map(
    [
      "docs/install.md",
      "docs/sizing.md",
      "docs/api.md",
      "README.md",
      "bench/README.md",
      "docs/otlp-metrics.md",
    ].map((p) => [p, read(p)]),
  );

for (const doc of [
  "docs/install.md",
  "docs/sizing.md",
  "README.md",
  "docs/api.md",
  "bench/README.md",
  "docs/otlp-metrics.md",
]) {
  test(`${doc} quotes the benchmark results as they are`, () => {
    const list = figures(results()).filter((f) => f.doc === doc);
    assert.ok(list.length > 0);
    assert.deepEqual(disagreements(docs(), list), []);
  });
}

test("bench/README.md's status page table is bench/results/status-page/50000.json's run", () => {
  const run = results().statusPage;
  const section = read("bench/README.md").split("## Status page")[1] ?? "";
  const table = new Map(
    [...section.matchAll(/^\| `([^`]+)`[^|]*\|([^\n]+)\|$/gm)].map((m) => [
      m[1],
      (m[2] ?? "").split("|").map((c) => c.trim()),
    ]),
  );
  assert.equal(table.size, run.requests.length, "one row per request");
  for (const r of run.requests) {
    const path = r.path.replace(/\/objects\/[0-9a-f-]{36}$/, "/objects/{uid}");
    const cells = table.get(path);
    assert.ok(cells, `no row for ${path}`);
    const [median = "", slowest = "", stall = "", bytes = ""] = cells.map((c) => c.replace(/ (ms|KB)$/, ""));
    const measuredAs = [r.lastByteMs, r.maxLastByteMs, r.maxLoopStallMs, r.bytes / 1000];
    assert.deepEqual(
      [median, slowest, stall, bytes].map((q, i) => agrees(q, measuredAs[i] as number)),
      [true, true, true, true],
      `${path}: quoted ${cells.join(" | ")}, measured ${measuredAs.join(", ")}`,
    );
  }
});

test("bench/README.md's OTLP table is bench/results/otlp-metrics/latest.json's run, row by row", () => {
  const section = (read("bench/README.md").split("## OTLP metrics export")[1] ?? "").split(
    "\n\nThe same command",
  )[0];
  const rows = [...(section ?? "").matchAll(/^\| +([\d,]+) \| ([^|]+?) +\| (no|yes) +\|([^\n]+)\|$/gm)];
  const run = results().otlp;
  const all = run.runs.flatMap((r) => r.rows);
  assert.equal(rows.length, all.length, "one row per case");
  for (const m of rows) {
    const [objects = "", protocol = "", gzip = "", rest = ""] = m.slice(1);
    const row = otlpRow(run, quotedNumber(objects), protocol, gzip === "yes" ? "gzip" : "none");
    const [points, requests, , serialized, sent, cpu, wall, stall, slice] = rest
      .split("|")
      .map((c) => c.trim());
    const exported = row.points > 0;
    const pairs: [string, number][] = [
      [serialized ?? "", row.rawBytes / MiB],
      [sent ?? "", row.bytes / MiB],
      [cpu ?? "", row.cpuMs],
      [wall ?? "", row.wallMs],
      [stall ?? "", row.stallMs],
      [requests ?? "", row.requests],
      ...(exported
        ? ([
            [points ?? "", row.points],
            [slice ?? "", row.serializeMs],
          ] as [string, number][])
        : []),
    ];
    const wrong = pairs.filter(([q, v]) => !agrees(q, v)).map(([q, v]) => `quoted ${q}, measured ${v}`);
    assert.deepEqual(wrong, [], `${objects} ${protocol} ${gzip}`);
  }
});

test("the OTLP export's targets at 50,000 widgets: stalls within 25 ms, and the verdict on CPU against the plain scrape is the measurement's", () => {
  const run = results().otlp;
  const bench = read("bench/README.md").replace(/\s+/g, " ");
  assert.match(
    bench,
    /\*\*the targets are an export that stalls the event loop at most 25 ms at 50,000 widgets, and costs no more CPU than that scrape\*\*/,
  );
  for (const compression of ["none", "gzip"] as const) {
    const row = otlpRow(run, 50_000, "http/protobuf", compression);
    assert.ok(row.stallMs <= 25, `${compression}: held the event loop ${row.stallMs} ms`);
  }
  const verdict = /for the plain scrape of the same store \([\d.]+×: \*\*(met|missed)\*\*/.exec(bench)?.[1];
  const plain = otlpRow(run, 50_000, "http/protobuf", "none");
  const met = plain.cpuMs <= otlpRow(run, 50_000, "/metrics scrape", "none").cpuMs;
  assert.equal(verdict, met ? "met" : "missed", `${plain.cpuMs} CPU ms`);
});

test("the status page meets its documented targets: the first screen under 1 s, no stall over 25 ms", () => {
  const run = results().statusPage;
  const bench = read("bench/README.md").replace(/\s+/g, " ");
  const firstScreen = /Target: \*\*the first screen .* in under (\d+) s at ([\d,]+) objects\*\*/.exec(bench);
  const stall = /Second target: \*\*no stall of the event loop over (\d+) ms\*\*/.exec(bench);
  assert.ok(firstScreen && stall, "bench/README.md states both targets");
  assert.equal(quotedNumber(firstScreen[2] ?? ""), run.objects);
  assert.equal(
    stall[1],
    "25",
    "the stall target the docs promise (docs/api.md: /metrics never waits behind a page)",
  );
  assert.ok(
    request(run, "/").lastByteMs < Number(firstScreen[1]) * 1000,
    `first screen ${request(run, "/").lastByteMs} ms`,
  );
  for (const r of run.requests) {
    assert.ok(r.maxLoopStallMs <= Number(stall[1]), `${r.path} held the event loop ${r.maxLoopStallMs} ms`);
  }
});

test("a changed measurement, or a changed doc, fails the comparison", () => {
  const base = results();
  assert.deepEqual(disagreements(docs(), figures(base)), [], "as committed");
  const changed = (edit: (r: Results) => void): string[] => {
    const r = structuredClone(base);
    edit(r);
    return disagreements(docs(), figures(r)).map((line) => line.split(":")[0] ?? "");
  };
  const fifty = (r: Results) => r.latest.run.sizes.find((s) => s.objects === 50_000);
  // install.md's 338 MiB (and the other docs quoting the same run) against a run that used 20 MiB more.
  assert.ok(
    changed((r) => {
      const ours = measured(fifty(r)?.subjects.default);
      if (ours) ours.rssAfterChurnBytes += 20 * MiB;
    }).includes("docs/install.md"),
  );
  assert.ok(
    changed((r) => {
      const idle = measured(r.latest.run.idle);
      if (idle) idle.rssSettledBytes += 3 * MiB;
    }).includes("docs/sizing.md"),
  );
  assert.deepEqual(
    changed((r) => {
      request(r.statusPage, "/").lastByteMs += 5;
    }),
    ["docs/api.md"],
  );
  // The doc edited alone: 640 MiB again.
  const edited = docs();
  edited.set(
    "docs/install.md",
    (edited.get("docs/install.md") ?? "").replace(/needs about \d+ MiB/, "needs about 640 MiB"),
  );
  assert.deepEqual(
    disagreements(edited, figures(base)).map((line) => line.split(":")[0]),
    ["docs/install.md"],
  );
});
