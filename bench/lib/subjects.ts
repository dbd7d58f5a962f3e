// What is compared, as data: kube-state-metrics with its custom-resource-state
// config, and our exporter twice, once limited to the same information and
// once with its default families. The equal-information allow list sits next
// to the KSM config it mirrors, so the two are read (and changed) together.
import { stringify } from "yaml";

export type SubjectId = "ksm" | "equal" | "default";

export interface SubjectSpec {
  id: SubjectId;
  /** Column title in the report. */
  label: string;
  program: "ksm" | "ours";
  /** The config file's content, written as is. */
  config: string;
  /**
   * Set when the exporter may not support this config yet: a rejected config
   * (exit 2) skips the subject with this explanation instead of failing the run.
   */
  skipWhenRejected?: string;
}

const widgetPhases = ["Pending", "Provisioning", "Running", "Failed", "Terminating"];

/**
 * kube-state-metrics' custom-resource-state config for widgets: a condition
 * StateSet (True/False/Unknown per type), generation and observedGeneration
 * gauges, and a phase StateSet. 19 series per 4-condition widget.
 */
export function ksmConfig(): string {
  const objectLabels = { namespace: ["metadata", "namespace"], name: ["metadata", "name"] };
  return stringify({
    kind: "CustomResourceStateMetrics",
    spec: {
      resources: [
        {
          groupVersionKind: { group: "example.com", version: "v1", kind: "Widget" },
          labelsFromPath: objectLabels,
          metrics: [
            {
              name: "status_condition",
              help: "The condition of a widget.",
              each: {
                type: "StateSet",
                stateSet: {
                  labelName: "status",
                  labelsFromPath: { type: ["type"] },
                  list: ["True", "False", "Unknown"],
                  path: ["status", "conditions"],
                  valueFrom: ["status"],
                },
              },
            },
            {
              name: "metadata_generation",
              help: "metadata.generation of a widget.",
              each: { type: "Gauge", gauge: { path: ["metadata", "generation"] } },
            },
            {
              name: "status_observed_generation",
              help: "status.observedGeneration of a widget.",
              each: { type: "Gauge", gauge: { path: ["status", "observedGeneration"] } },
            },
            {
              name: "status_phase",
              help: "status.phase of a widget.",
              each: {
                type: "StateSet",
                stateSet: { labelName: "phase", path: ["status", "phase"], list: widgetPhases },
              },
            },
          ],
        },
      ],
    },
  });
}

/**
 * Our families that carry exactly what ksmConfig() exports, in its order:
 * condition status per type, metadata.generation, status.observedGeneration,
 * phase.
 */
export const equalInformationFamilies = [
  "cr_condition",
  "cr_metadata_generation",
  "cr_status_observed_generation",
  "cr_phase",
];

const widgets = { group: "example.com", resource: "widgets" };

/** Our exporter watching widgets with its default families. */
export function oursDefaultConfig(): string {
  return stringify({ logLevel: "info", resources: [widgets] });
}

/**
 * Our exporter limited to the equal-information families. The allow list is
 * on the resource entry, so it selects the widget families only and leaves the
 * process's own metrics (the event-loop delay read during scrapes) alone.
 */
export function oursEqualConfig(): string {
  return stringify({
    logLevel: "info",
    resources: [{ ...widgets, metrics: { allow: equalInformationFamilies } }],
  });
}

/**
 * A sidecar's config: one namespace, no CRD discovery (so the resource is
 * given in full), tracing off. Used with an empty namespace for idle RSS.
 */
export function oursSidecarConfig(namespace: string): string {
  return stringify({
    logLevel: "info",
    crdDiscovery: false,
    tracing: { enabled: false },
    resources: [{ ...widgets, version: "v1", kind: "Widget", namespaced: true, namespaces: [namespace] }],
  });
}

/** The subjects of one size, in the order they run. */
export const subjects: readonly SubjectSpec[] = [
  { id: "ksm", label: "KSM", program: "ksm", config: ksmConfig() },
  {
    id: "equal",
    label: "ours, equal information",
    program: "ours",
    config: oursEqualConfig(),
    skipWhenRejected: "this exporter has no metrics allow list (resources[].metrics) yet",
  },
  { id: "default", label: "ours, default set", program: "ours", config: oursDefaultConfig() },
];

export const subjectIds: readonly SubjectId[] = subjects.map((s) => s.id);

/**
 * The per-object condition family of each program: its Ready lines tell when
 * an object is in /metrics (sync) and what its Ready status is (latency).
 */
export const conditionFamily: Record<SubjectSpec["program"], string> = {
  ours: "cr_condition",
  ksm: "kube_customresource_status_condition",
};
