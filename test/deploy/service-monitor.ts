// What prometheus-operator makes of a rendered ServiceMonitor, for a test
// Prometheus with static targets: the Service's name and labels become the
// `__meta_kubernetes_service_*` labels service discovery would attach, and the
// relabelings are the operator's (v0.85, pkg/prometheus/promcfg.go): `job`
// from the Service name, overridden by the Service label named by jobLabel,
// then the endpoint's own relabelings. Prometheus itself applies them.
import type { ScrapeTarget } from "../prometheus/index.ts";
import { find, type KubeObject } from "./render.ts";

interface Endpoint {
  port: string;
  path?: string;
  honorLabels?: boolean;
  relabelings?: Record<string, unknown>[];
}

const sanitize = (name: string): string => name.replace(/[^a-zA-Z0-9_]/g, "_");

/** prometheus-operator's camelCase RelabelConfig → Prometheus' relabel_config. */
function relabelConfig(relabeling: Record<string, unknown>): Record<string, unknown> {
  const keys: Record<string, string> = {
    sourceLabels: "source_labels",
    targetLabel: "target_label",
    replacement: "replacement",
    regex: "regex",
    separator: "separator",
    modulus: "modulus",
    action: "action",
  };
  return Object.fromEntries(
    Object.entries(relabeling).map(([key, value]) => {
      const mapped = keys[key];
      if (!mapped) throw new Error(`relabeling field ${key} is not translated`);
      return [mapped, mapped === "action" ? String(value).toLowerCase() : value];
    }),
  );
}

/** The scrape configuration the ServiceMonitor in `objects` gives for a Service endpoint at `address` (host:port). */
export function serviceMonitorScrape(objects: KubeObject[], address: string): ScrapeTarget {
  const monitor = find(objects, "ServiceMonitor");
  const spec = monitor.spec as {
    jobLabel?: string;
    selector: { matchLabels: Record<string, string> };
    endpoints: Endpoint[];
  };
  const service = objects.find(
    (o) =>
      o.kind === "Service" &&
      Object.entries(spec.selector.matchLabels).every(([k, v]) => o.metadata.labels?.[k] === v),
  );
  if (!service) throw new Error(`no Service matches ${JSON.stringify(spec.selector.matchLabels)}`);
  const [endpoint] = spec.endpoints;
  if (!endpoint) throw new Error("the ServiceMonitor has no endpoint");
  const labels: Record<string, string> = {
    __meta_kubernetes_service_name: service.metadata.name,
    __meta_kubernetes_namespace: service.metadata.namespace ?? "",
  };
  for (const [key, value] of Object.entries(service.metadata.labels ?? {})) {
    labels[`__meta_kubernetes_service_label_${sanitize(key)}`] = value;
  }
  const relabelConfigs: Record<string, unknown>[] = [
    { source_labels: ["__meta_kubernetes_service_name"], target_label: "job", replacement: "${1}" },
    ...(spec.jobLabel
      ? [
          {
            source_labels: [`__meta_kubernetes_service_label_${sanitize(spec.jobLabel)}`],
            target_label: "job",
            regex: "(.+)",
            replacement: "${1}",
          },
        ]
      : []),
    { target_label: "endpoint", replacement: endpoint.port },
    ...(endpoint.relabelings ?? []).map(relabelConfig),
  ];
  return {
    job: `serviceMonitor/${monitor.metadata.namespace}/${monitor.metadata.name}/0`,
    targets: [address],
    metricsPath: endpoint.path ?? "/metrics",
    honorLabels: endpoint.honorLabels ?? false,
    labels,
    relabelConfigs,
  };
}
