// Which resource types to watch and how: matches the configured selectors
// against the CRDs in the cluster (first matching selector wins) and builds
// each collector's settings, filling what the config leaves open from the CRD
// schema. Pure: CRD summaries and config in, plans out.
import type { ResourceOptions, ResourceSelector } from "../config/schema.ts";
import { type CrdSummary, pickVersion, type VersionSummary } from "../core/crd.ts";
import type { FamilySelection } from "../core/family-selection.ts";
import type { ObservedGenerationSource } from "../core/generations.ts";
import { defaultProjectionSettings, type ProjectionSettings } from "../core/project.ts";
import { globMatch, labelsMatch } from "../core/selectors.ts";
import type { ResourceIdentity } from "../core/state.ts";
import type { CollectorSettings } from "./resource-collector.ts";

export interface CollectorPlan {
  /** `group/resource`: one collector per resource type. */
  key: string;
  identity: ResourceIdentity;
  statusSubresource: boolean;
  projection: ProjectionSettings;
  phases: string[];
  generationSource: ObservedGenerationSource;
  options: ResourceOptions;
  /**
   * Equal fingerprints: the running collector can stay (the family rules are
   * left out: a change of them only re-renders, see ResourceCollector.reselect).
   */
  fingerprint: string;
}

function selectorMatches(selector: ResourceSelector, crd: CrdSummary): boolean {
  if (selector.group !== undefined) {
    return (
      selector.group === crd.group &&
      (selector.resource === undefined || selector.resource === crd.plural) &&
      (selector.kind === undefined || selector.kind === crd.kind)
    );
  }
  if (selector.groups.length > 0 && !selector.groups.some((g) => globMatch(g, crd.group))) return false;
  if (selector.categories.length > 0 && !selector.categories.some((c) => crd.categories.includes(c)))
    return false;
  if (selector.crdSelector !== undefined && !labelsMatch(selector.crdSelector, crd.labels)) return false;
  return true;
}

function path(dotted: string | undefined): string[] | undefined {
  return dotted?.split(".");
}

function projectionFor(options: ResourceOptions, version: VersionSummary | undefined): ProjectionSettings {
  // The schema decides what to look at unless the config says otherwise; a
  // schemaless status is read at the conventional paths.
  const open = version?.openStatus ?? true;
  return {
    ...defaultProjectionSettings,
    conditionsPath: path(options.conditionsPath) ?? defaultProjectionSettings.conditionsPath,
    observedGenerationPath:
      path(options.observedGenerationPath) ?? defaultProjectionSettings.observedGenerationPath,
    phasePath: path(options.phasePath) ?? (open || version?.phase ? ["status", "phase"] : undefined),
    heartbeatPath: path(options.heartbeatField),
    extraLabels: options.labels.map((l) => ({ key: l.key, name: l.name, from: l.from })),
  };
}

/**
 * Where the lag's observed generation comes from: the status field when it is
 * configured or declared; the ready condition's own observedGeneration when
 * the schema is known and has no such field; either (status first) when the
 * status is schemaless or the CRD was not read.
 */
function generationSourceFor(
  options: ResourceOptions,
  version: VersionSummary | undefined,
): ObservedGenerationSource {
  if (options.observedGenerationPath !== undefined || version?.observedGeneration) return "status";
  if (version && !version.openStatus) return "condition";
  return "status_or_condition";
}

function plan(
  identity: ResourceIdentity,
  version: VersionSummary | undefined,
  options: ResourceOptions,
): CollectorPlan {
  const projection = projectionFor(options, version);
  const statusSubresource = version?.statusSubresource ?? true;
  const phases = version?.phaseEnum ?? [];
  const generationSource = generationSourceFor(options, version);
  const { metrics: _rules, ...watched } = options;
  return {
    key: `${identity.group}/${identity.resource}`,
    identity,
    statusSubresource,
    projection,
    phases,
    generationSource,
    options,
    fingerprint: JSON.stringify([identity, statusSubresource, projection, phases, generationSource, watched]),
  };
}

/** Plans for the CRDs that are established and selected. */
export function planFromCrds(
  selectors: readonly ResourceSelector[],
  crds: Iterable<CrdSummary>,
): CollectorPlan[] {
  const plans: CollectorPlan[] = [];
  for (const crd of crds) {
    if (!crd.established) continue;
    const selector = selectors.find((s) => selectorMatches(s, crd));
    if (!selector) continue;
    const version = pickVersion(crd, selector.version);
    if (!version) continue;
    plans.push(
      plan(
        {
          group: crd.group,
          version: version.name,
          kind: crd.kind,
          resource: crd.plural,
          namespaced: crd.namespaced,
        },
        version,
        selector.options,
      ),
    );
  }
  return plans.sort((a, b) => a.key.localeCompare(b.key));
}

/** Plans for fully specified selectors, without reading CRDs (crdDiscovery: false). */
export function planStatic(selectors: readonly ResourceSelector[]): CollectorPlan[] {
  return selectors
    .filter((s) => s.group && s.version && s.resource && s.kind && s.namespaced !== undefined)
    .map((s) =>
      plan(
        {
          group: s.group as string,
          version: s.version as string,
          kind: s.kind as string,
          resource: s.resource as string,
          namespaced: s.namespaced as boolean,
        },
        undefined,
        s.options,
      ),
    );
}

/** Explicit selectors that match no established CRD, for /readyz and logs. */
export function missingExplicit(
  selectors: readonly ResourceSelector[],
  crds: Iterable<CrdSummary>,
): string[] {
  const list = [...crds].filter((c) => c.established);
  return selectors
    .filter((s) => s.group !== undefined && !list.some((crd) => selectorMatches(s, crd)))
    .map((s) => `${s.resource ?? s.kind}.${s.group}`);
}

const dotted = (path: readonly string[] | undefined): string => path?.join(".") ?? "";

/** The core's per-kind settings from a plan (how series are rendered is the collector's). */
export function kindSettingsFor(plan: CollectorPlan): CollectorSettings["kind"] {
  const o = plan.options;
  return {
    projection: plan.projection,
    status: { readyCondition: o.readyCondition, failedAfterSeconds: o.failedAfterSeconds },
    generations: { source: plan.generationSource, readyCondition: o.readyCondition },
    phaseTransitions: o.phaseTransitions,
  };
}

/** A collector's settings from its plan, the prefix and the selected families. */
export function settingsFor(
  plan: CollectorPlan,
  prefix: string,
  selection: FamilySelection,
): CollectorSettings {
  const o = plan.options;
  const source = plan.generationSource;
  return {
    identity: plan.identity,
    statusSubresource: plan.statusSubresource,
    kind: kindSettingsFor(plan),
    mode: o.mode,
    selection,
    prefix,
    extraLabelNames: o.labels.map((l) => l.name),
    phaseEnum: plan.phases,
    maxReasons: o.maxReasons,
    maxSeries: o.maxSeries,
    namespaces: plan.identity.namespaced ? o.namespaces : [],
    labelSelector: o.labelSelector,
    info: {
      status_subresource: String(plan.statusSubresource),
      conditions_path: dotted(plan.projection.conditionsPath),
      observed_generation_path: source === "condition" ? "" : dotted(plan.projection.observedGenerationPath),
      observed_generation_source: source,
      phase_path: dotted(plan.projection.phasePath),
      ready_condition: o.readyCondition,
    },
  };
}
