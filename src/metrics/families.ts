// The registry's metrics made from the catalog's exporter families
// (src/core/series/catalog-exporter.ts): name, help, labels and buckets come from the
// entry, so the self, status-write and tracing metrics never restate them.
import { Counter, Gauge, Histogram, type Registry } from "@prometheus-io/client";
import { type ExporterFamilyKey, type ExporterLabels, exporterFamilies } from "../core/series/catalog.ts";

/** Makes the exporter families' metrics in one registry, with one prefix. */
export class ExporterFamilies {
  readonly #registry: Registry;
  readonly #prefix: string;

  constructor(registry: Registry, prefix: string) {
    this.#registry = registry;
    this.#prefix = prefix;
  }

  #options<K extends ExporterFamilyKey>(key: K) {
    const family = exporterFamilies[key];
    return {
      name: this.#prefix + family.suffix,
      help: family.help,
      labelNames: family.labels as readonly ExporterLabels<K>[],
      registers: [this.#registry],
    };
  }

  /** `collect`: called before each scrape, to set the value from its source. */
  gauge<K extends ExporterFamilyKey>(
    key: K,
    collect?: (this: Gauge<ExporterLabels<K>>) => void | Promise<void>,
  ): Gauge<ExporterLabels<K>> {
    return new Gauge<ExporterLabels<K>>({ ...this.#options(key), ...(collect && { collect }) });
  }

  /** `collect`: called before each scrape, to set the values from their source. */
  counter<K extends ExporterFamilyKey>(
    key: K,
    collect?: (this: Counter<ExporterLabels<K>>) => void | Promise<void>,
  ): Counter<ExporterLabels<K>> {
    return new Counter<ExporterLabels<K>>({ ...this.#options(key), ...(collect && { collect }) });
  }

  histogram<K extends ExporterFamilyKey>(key: K): Histogram<ExporterLabels<K>> {
    const buckets = exporterFamilies[key].buckets;
    return new Histogram<ExporterLabels<K>>({
      ...this.#options(key),
      ...(buckets && { buckets: [...buckets] }),
    });
  }
}
