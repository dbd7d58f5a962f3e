// Streams /metrics: every per-object family once (one HELP/TYPE block, then
// the pre-rendered series of every resource), the aggregate families, then the
// client library's registry (self metrics, histograms, process metrics).
// Gives the event loop a turn whenever it has worked for a few milliseconds,
// so serving hundreds of thousands of series never stalls the watches.
import { Registry } from "@prometheus-io/client";
import { escapeHelp } from "../core/exposition.ts";
import { aggregateFamilies, type FamilyDefinition, objectFamilies } from "../core/families.ts";

export const prometheusTextType = "text/plain; version=0.0.4; charset=utf-8";
export const openMetricsType = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/** What the writer needs from a collector. */
export interface SeriesSource {
  familyText(slot: number, now: number): Iterable<string>;
  aggregateText(index: number, now: number): string;
}

export interface WriteOptions {
  sources: readonly SeriesSource[];
  registry: Registry;
  prefix: string;
  openMetrics: boolean;
  /** Epoch seconds. */
  now: number;
  /** Longest stretch of synchronous work before yielding (ms). */
  sliceMs?: number;
}

function header(prefix: string, family: FamilyDefinition, openMetrics: boolean): string {
  let name = `${prefix}${family.suffix}`;
  // OpenMetrics names a counter family without its _total suffix.
  if (openMetrics && family.type === "counter") name = name.replace(/_total$/, "");
  return `# HELP ${name} ${escapeHelp(family.help)}\n# TYPE ${name} ${family.type}\n`;
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

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
function renderRegistry(registry: Registry, openMetrics: boolean): Promise<string> {
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

export async function* writeExposition(options: WriteOptions): AsyncGenerator<string> {
  const { sources, prefix, openMetrics, now } = options;
  const sliceMs = options.sliceMs ?? 10;
  let sliceStart = performance.now();
  const maybeYieldTurn = async (): Promise<void> => {
    if (performance.now() - sliceStart >= sliceMs) {
      await turn();
      sliceStart = performance.now();
    }
  };

  for (let slot = 0; slot < objectFamilies.length; slot++) {
    let headerWritten = false;
    for (const source of sources) {
      for (const text of source.familyText(slot, now)) {
        if (!headerWritten) {
          yield header(prefix, objectFamilies[slot] as FamilyDefinition, openMetrics);
          headerWritten = true;
        }
        yield text;
        await maybeYieldTurn();
      }
    }
  }
  for (let index = 0; index < aggregateFamilies.length; index++) {
    let body = "";
    for (const source of sources) body += source.aggregateText(index, now);
    if (body) yield header(prefix, aggregateFamilies[index] as FamilyDefinition, openMetrics) + body;
    await maybeYieldTurn();
  }
  // An empty registry renders as a lone newline, and OpenMetrics parsers reject
  // a blank line before "# EOF": drop leading newlines.
  const registryText = (await renderRegistry(options.registry, openMetrics)).replace(/^\n+/, "");
  yield openMetrics && !registryText.includes("# EOF") ? `${registryText}# EOF\n` : registryText;
}
