// The exporter's side of the API proxy's counters (counters-channel.ts): the
// proxy process's status-write families, read at each scrape and exposed
// under today's names and labels beside the audit receiver's values.
//
// The values passed through are the proxy process's own cumulative counts
// since it started. An exporter restart loses nothing: the first scrape after
// it reads everything the proxy counted meanwhile, and Prometheus sees the
// counters continue. A proxy restart starts them again from zero, which
// Prometheus takes as a counter reset (rate() and increase() handle it); what
// the old proxy counted after the last scrape is lost with it. While the proxy
// does not answer (restarting), the values of its last answer stay exposed,
// and cr_exporter_api_proxy_up is 0.
import type { Metric, Registry } from "@prometheus-io/client";
import { type ExporterFamilyKey, exporterFamilies } from "../../core/series/catalog.ts";
import type { Logger } from "../../log.ts";
import { ExporterFamilies } from "../../metrics/families.ts";
import type { ProxyCountersSnapshot, RemoteSample } from "./counters-channel.ts";

/**
 * The snapshot to show after `incoming` arrives while `current` is shown: the
 * first one; one of a later proxy process (more restarts, or another instance
 * after as many: its counters restarted from zero, a reset passed through);
 * or a later one of the same process. An answer overtaken by a later one, or
 * one of a proxy process that was already replaced, is dropped.
 */
export function acceptSnapshot(
  current: ProxyCountersSnapshot | undefined,
  incoming: ProxyCountersSnapshot,
): ProxyCountersSnapshot {
  if (!current) return incoming;
  if (incoming.restarts !== current.restarts)
    return incoming.restarts > current.restarts ? incoming : current;
  if (incoming.instance !== current.instance) return incoming;
  return incoming.sequence >= current.sequence ? incoming : current;
}

export interface ProxyCountersOptions {
  read(): Promise<ProxyCountersSnapshot>;
  logger: Logger;
}

/** The last snapshot read from the proxy process, refreshed on demand (one read at a time). */
export class ProxyCounters {
  readonly #read: () => Promise<ProxyCountersSnapshot>;
  readonly #logger: Logger;
  #snapshot: ProxyCountersSnapshot | undefined;
  #samples = new Map<string, readonly RemoteSample[]>();
  #inFlight: Promise<void> | undefined;
  #up = false;

  constructor(options: ProxyCountersOptions) {
    this.#read = options.read;
    this.#logger = options.logger;
  }

  /** The snapshot shown (undefined until the proxy answered once). */
  get snapshot(): ProxyCountersSnapshot | undefined {
    return this.#snapshot;
  }

  /** True when the last read succeeded. */
  get up(): boolean {
    return this.#up;
  }

  /** Reads a snapshot unless a read is under way, in which case that one is awaited. Never rejects. */
  refresh(): Promise<void> {
    this.#inFlight ??= this.#readOnce().finally(() => {
      this.#inFlight = undefined;
    });
    return this.#inFlight;
  }

  /** The samples of family `name` in the snapshot shown. */
  samples(name: string): readonly RemoteSample[] {
    return this.#samples.get(name) ?? [];
  }

  async #readOnce(): Promise<void> {
    let incoming: ProxyCountersSnapshot;
    try {
      incoming = await this.#read();
    } catch (error) {
      if (this.#up) {
        this.#logger.warn("cannot read the API proxy's counters; its last values stay exposed", {
          error: String(error),
        });
      }
      this.#up = false;
      return;
    }
    const previous = this.#snapshot;
    const next = acceptSnapshot(previous, incoming);
    if (next !== previous) {
      this.#snapshot = next;
      this.#samples = new Map(next.families.map((f) => [f.name, f.values]));
      if (previous && next.instance !== previous.instance) {
        this.#logger.info("the API proxy process was restarted; its counters started again from zero", {
          pid: next.pid,
          restarts: next.restarts,
        });
      }
    }
    if (!this.#up && previous) this.#logger.info("the API proxy's counters are readable again");
    this.#up = true;
  }
}

/** The status-write families whose samples come from the proxy process too. */
export const statusWriteFamilyKeys = [
  "statusUpdateRequests",
  "statusUpdateFailures",
  "statusUpdateRequestDuration",
  "statusUpdateRequestsByUser",
  "statusUpdateLabelsFolded",
] as const satisfies readonly ExporterFamilyKey[];

interface Values {
  name: string;
  values: unknown[];
}

/**
 * A family of the registry whose samples are its own (the audit receiver's)
 * followed by the proxy process's. It stands in the registry in the local
 * family's place, so both render as one family.
 */
class MergedFamily {
  /** Renamed by the registry while it renders OpenMetrics (metrics/writer.ts puts it back). */
  name: string;
  readonly help: string;
  readonly type: string;
  readonly aggregator: string;
  readonly labelNames: readonly string[];
  readonly #local: Metric;
  readonly #key: string;
  readonly #counters: ProxyCounters;

  constructor(local: Metric, counters: ProxyCounters) {
    const described = local as unknown as {
      name: string;
      help: string;
      type: string;
      aggregator?: string;
      labelNames: string[];
    };
    this.name = described.name;
    this.#key = described.name;
    this.help = described.help;
    this.type = described.type;
    this.aggregator = described.aggregator ?? "sum";
    this.labelNames = described.labelNames;
    this.#local = local;
    this.#counters = counters;
  }

  async get(): Promise<Values & { help: string; type: string; aggregator: string }> {
    const [own] = (await Promise.all([this.#local.get(), this.#counters.refresh()])) as [Values, unknown];
    return {
      ...own,
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values: [...own.values, ...this.#counters.samples(this.#key)],
    };
  }

  reset(): void {
    this.#local.reset();
  }
}

/** Puts the proxy process's samples into the registry's status-write families (which must exist). */
export function mergeProxyFamilies(registry: Registry, prefix: string, counters: ProxyCounters): void {
  for (const key of statusWriteFamilyKeys) {
    const name = prefix + exporterFamilies[key].suffix;
    const local = registry.getSingleMetric(name);
    if (!local) throw new Error(`${name} is not registered`);
    registry.removeSingleMetric(name);
    registry.registerMetric(new MergedFamily(local, counters) as unknown as Metric);
  }
}

/**
 * cr_exporter_api_proxy_up and cr_exporter_process_restarts_total: whether this
 * scrape read the proxy's counters, and how often the supervisor restarted each
 * process (the exporter's own count comes from the supervisor at its start).
 */
export function registerProxyProcessMetrics(
  registry: Registry,
  prefix: string,
  counters: Pick<ProxyCounters, "refresh" | "up" | "snapshot">,
  exporterRestarts: number,
): void {
  const f = new ExporterFamilies(registry, prefix);
  f.gauge("apiProxyUp", async function collect() {
    await counters.refresh();
    this.set(counters.up ? 1 : 0);
  });
  f.counter("processRestarts", async function collect() {
    await counters.refresh();
    this.reset();
    this.inc({ process: "exporter" }, exporterRestarts);
    const proxy = counters.snapshot;
    if (proxy) this.inc({ process: "api-proxy" }, proxy.restarts);
  });
}
