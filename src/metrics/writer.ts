// Streams /metrics as Buffers: every per-object family once (one HELP/TYPE
// block, then the pre-rendered series of every resource), the aggregate
// families, then the client library's registry (self metrics, histograms,
// process metrics). Nothing is rendered here: stored text is copied into
// chunks. The writer works only while a turn's budget lasts (net/turns.ts,
// shared with every other sliced request), so serving a million series never
// stalls the watches.
import { Registry } from "@prometheus-io/client";
import type { ObjectEntry } from "../core/entry.ts";
import { aggregateFamilies, type FamilyType, objectFamilies } from "../core/series/catalog.ts";
import { byteString, escapeHelp } from "../core/series/exposition.ts";
import { sharedTurns, type TurnShare } from "../net/turns.ts";
import { ChunkWriter } from "./chunks.ts";

export const prometheusTextType = "text/plain; version=0.0.4; charset=utf-8";
export const openMetricsType = "application/openmetrics-text; version=1.0.0; charset=utf-8";

export type FamilyRef = { kind: "object"; slot: number } | { kind: "aggregate"; index: number };

/** A per-object store as the OTLP export reads it (src/otlp-metrics/points.ts): entries, not text. */
export interface ObjectSlots {
  /** Full family names by object family slot. */
  names: readonly string[];
  /** Bit per object family slot: the families this resource exports. */
  selected: number;
  entries: Iterable<ObjectEntry>;
}

/** Something that holds series: a resource's per-object store, or its aggregate counts. */
export interface SeriesSource {
  /**
   * Writes this source's lines of `family` to `out`, yielding whenever `out` has chunks ready, and
   * often enough besides that the writer can hand the turn on (a source with many objects and few lines).
   */
  write(family: FamilyRef, out: ChunkWriter): Iterable<void>;
  /** A per-object store's entries and selection (undefined: not a per-object store, or nothing selected). */
  objects?(): ObjectSlots | undefined;
}

export interface WriteOptions {
  sources: readonly SeriesSource[];
  registry: Registry;
  prefix: string;
  openMetrics: boolean;
  /** Whose turns of the event loop the writing shares (the process's one share unless a test gives its own). */
  turns?: TurnShare;
  chunkBytes?: number;
}

export interface WrittenFamily {
  ref: FamilyRef;
  suffix: string;
  type: FamilyType;
  help: string;
}

export const writtenFamilies: readonly WrittenFamily[] = [
  ...objectFamilies.map((f) => ({ ref: { kind: "object" as const, slot: f.slot }, ...f })),
  ...aggregateFamilies.map((f) => ({ ref: { kind: "aggregate" as const, index: f.index }, ...f })),
];

function header(prefix: string, family: WrittenFamily, openMetrics: boolean): string {
  let name = `${prefix}${family.suffix}`;
  // OpenMetrics names a counter family without its _total suffix.
  if (openMetrics && family.type === "counter") name = name.replace(/_total$/, "");
  return byteString(`# HELP ${name} ${escapeHelp(family.help)}\n# TYPE ${name} ${family.type}\n`);
}

let registryLock: Promise<unknown> = Promise.resolve();

/**
 * Rendering OpenMetrics makes the client library strip `_total` from each
 * counter's name in place, so a later Prometheus-format scrape would name
 * counters without it. Every counter of ours ends in `_total`: put it back.
 */
function restoreCounterNames(registry: Registry): void {
  for (const metric of registry.getMetricsAsArray() as unknown as { name: string; type?: string }[]) {
    if (metric.type === "counter" && !metric.name.endsWith("_total")) metric.name = `${metric.name}_total`;
  }
}

/** Renders the registry in the requested format; serialized because the format is registry state. */
export function renderRegistry(registry: Registry, openMetrics: boolean): Promise<string> {
  const run = registryLock.then(async () => {
    registry.setContentType(
      openMetrics ? Registry.OPENMETRICS_CONTENT_TYPE : Registry.PROMETHEUS_CONTENT_TYPE,
    );
    try {
      return await registry.metrics();
    } finally {
      if (openMetrics) restoreCounterNames(registry);
    }
  });
  registryLock = run.catch(() => undefined);
  return run;
}

/**
 * Drops HELP/TYPE blocks without samples: like the per-object families, a
 * family that has no series (a per-kind histogram that no resource selects,
 * an error counter that never counted) is not written at all.
 */
export function withoutEmptyFamilies(text: string): string {
  let out = "";
  let block = "";
  let hasType = false;
  let hasSamples = false;
  const flush = (): void => {
    if (hasSamples) out += block;
    block = "";
    hasType = false;
    hasSamples = false;
  };
  for (const line of text.split("\n")) {
    if (line === "" || line === "# EOF") continue;
    const isHelp = line.startsWith("# HELP ");
    const isType = line.startsWith("# TYPE ");
    if (isHelp || (isType && (hasType || hasSamples))) flush();
    if (isType) hasType = true;
    else if (!line.startsWith("#")) hasSamples = true;
    block += `${line}\n`;
  }
  flush();
  return out;
}

/** The exposition in chunks of byte strings (one character per byte: send them as latin-1). */
export async function* writeExposition(options: WriteOptions): AsyncGenerator<string> {
  const { sources, prefix, openMetrics } = options;
  const turns = options.turns ?? sharedTurns;
  const out = new ChunkWriter(options.chunkBytes);
  // A scrape has a deadline (Prometheus' scrape timeout): its turns come first.
  await turns.slice("first");
  for (const family of writtenFamilies) {
    out.setHeader(header(prefix, family, openMetrics));
    for (const source of sources) {
      for (const _ of source.write(family.ref, out)) {
        yield* out.take();
        await turns.slice("first");
      }
    }
    out.setHeader(undefined);
  }
  const registryText = withoutEmptyFamilies(await renderRegistry(options.registry, openMetrics));
  out.write(byteString(openMetrics ? `${registryText}# EOF\n` : registryText));
  yield* out.end();
}
