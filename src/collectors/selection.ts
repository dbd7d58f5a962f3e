// Which resource types to watch and how: matches the configured selectors
// against the CRDs in the cluster (first matching selector wins) and builds
// each collector's settings, filling what the config leaves open from the CRD
// schema. Pure: CRD summaries and config in, plans out.
import type { KindOverride, ResourceOptions, ResourceSelector } from "../config/schema.ts";
import { type CrdSummary, pickVersion } from "../core/detect/crd.ts";
import { decideWithSamples, noSamples } from "../core/detect/learn.ts";
import type { VersionDetection } from "../core/detect/schema.ts";
import type { DetectedShape } from "../core/detect/shape.ts";
import type { ObservedGenerationSource } from "../core/judge/generations.ts";
import type { ReadinessRules } from "../core/judge/readiness.ts";
import type { ProjectionSettings } from "../core/project/project.ts";
import { globMatch, labelsMatch } from "../core/selectors.ts";
import type { FamilySelection } from "../core/series/family-selection.ts";
import type { ResourceIdentity } from "../core/state.ts";
import type { WatchScope } from "./collector-settings.ts";
import type { CollectorSettings } from "./resource-collector.ts";
import { type ResourceInfo, shapeSettings } from "./shape-settings.ts";
import { type ExportedCandidate, type ValueCandidate, valueCandidates } from "./value-candidates.ts";

export interface CollectorPlan {
  /** `group/resource`: one collector per resource type. */
  key: string;
  identity: ResourceIdentity;
  statusSubresource: boolean;
  /** What the CRD version's schema says (undefined without CRD discovery). */
  detection: VersionDetection | undefined;
  /** The decision from the schema and the objects learned from so far (undefined without CRD discovery). */
  shape: DetectedShape | undefined;
  projection: ProjectionSettings;
  phases: string[];
  stateValues: Record<string, string[]>;
  generationSource: ObservedGenerationSource;
  readiness: ReadinessRules;
  info: ResourceInfo;
  /** The schema's numeric and date-time status fields that nothing exports (explain, cr_exporter_value_candidate_info). */
  valueCandidates: readonly ValueCandidate[];
  /** The candidates exported as cr_value, after the configured values (valueCandidates: export). */
  exportedCandidates: readonly ExportedCandidate[];
  options: ResourceOptions;
  /**
   * Equal fingerprints: the running collector can stay (what changes only
   * how objects are judged or which families are rendered is left out: see
   * `judging` and ResourceCollector.reselect).
   */
  fingerprint: string;
  /** Equal: objects are judged the same way (readiness, generation source, phase rules, info). */
  judging: string;
}

/** The decision for one CRD version: by default from its schema alone. */
export type ShapeLookup = (crd: CrdSummary, version: VersionDetection) => DetectedShape;

export const schemaOnly: ShapeLookup = (_crd, version) => decideWithSamples(version, noSamples);

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

/** The override for a kind, if any: the first whose kind/resource and group match. */
function overrideFor(
  overrides: readonly KindOverride[],
  crd: { group: string; kind: string; plural: string },
): KindOverride | undefined {
  return overrides.find(
    (o) =>
      (o.kind === undefined || o.kind === crd.kind) &&
      (o.resource === undefined || o.resource === crd.plural) &&
      (o.group === undefined || o.group === crd.group),
  );
}

function plan(
  identity: ResourceIdentity,
  detection: VersionDetection | undefined,
  shape: DetectedShape | undefined,
  options: ResourceOptions,
): CollectorPlan {
  const statusSubresource = detection?.statusSubresource ?? true;
  const open = detection?.openStatus ?? true;
  const candidates = valueCandidates(detection?.valueFields ?? [], options.values, options.valueCandidates);
  const decided = shapeSettings(options, shape, open, statusSubresource, candidates.exported);
  const {
    metrics: _rules,
    readyCondition: _ready,
    failedAfterSeconds: _failedAfter,
    phaseResults: _phaseResults,
    phaseTransitions: _transitions,
    ...watched
  } = options;
  const { projection, phases, stateValues } = decided;
  return {
    key: `${identity.group}/${identity.resource}`,
    identity,
    statusSubresource,
    detection,
    shape,
    ...decided,
    valueCandidates: candidates.proposed,
    exportedCandidates: candidates.exported,
    options,
    fingerprint: JSON.stringify([identity, statusSubresource, projection, phases, stateValues, watched]),
    judging: JSON.stringify([
      decided.readiness,
      decided.generationSource,
      options.phaseTransitions ?? null,
      decided.info,
    ]),
  };
}

/** The same plan decided again with another shape (objects were learned from). */
export function replan(previous: CollectorPlan, shape: DetectedShape): CollectorPlan {
  return plan(previous.identity, previous.detection, shape, previous.options);
}

/** Plans for the CRDs that are established and selected. */
export function planFromCrds(
  selectors: readonly ResourceSelector[],
  crds: Iterable<CrdSummary>,
  shapeOf: ShapeLookup = schemaOnly,
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
          version: version.version,
          kind: crd.kind,
          resource: crd.plural,
          namespaced: crd.namespaced,
        },
        version,
        shapeOf(crd, version),
        overrideFor(selector.overrides, crd)?.options ?? selector.options,
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

/** The core's per-kind settings from a plan (how series are rendered is the collector's). */
export function kindSettingsFor(plan: CollectorPlan): CollectorSettings["kind"] {
  return {
    projection: plan.projection,
    readiness: plan.readiness,
    generationSource: plan.generationSource,
    phaseTransitions: plan.options.phaseTransitions,
  };
}

/** A collector's settings from its plan, the prefix and the selected families. */
export function settingsFor(
  plan: CollectorPlan,
  prefix: string,
  selection: FamilySelection,
): CollectorSettings {
  const o = plan.options;
  return {
    identity: plan.identity,
    statusSubresource: plan.statusSubresource,
    kind: kindSettingsFor(plan),
    mode: o.mode,
    selection,
    prefix,
    extraLabelNames: o.labels.map((l) => l.name),
    phaseEnum: plan.phases,
    stateValues: plan.stateValues,
    maxReasons: o.maxReasons,
    maxSeries: o.maxSeries,
    scope: watchScope(plan),
    info: plan.info,
    valueCandidates: plan.valueCandidates,
    tracing: o.tracing,
  };
}

/** What the options make a resource's collector (and the CLI) list and watch. */
export function watchScope(plan: CollectorPlan): WatchScope {
  const o = plan.options;
  return {
    namespaces: plan.identity.namespaced ? o.namespaces : [],
    labelSelector: o.labelSelector,
    // On a namespace's own watch too: an excluded namespace listed in `namespaces` yields nothing.
    fieldSelector:
      plan.identity.namespaced && o.excludeNamespaces.length > 0
        ? o.excludeNamespaces.map((ns) => `metadata.namespace!=${ns}`).join(",")
        : undefined,
  };
}
