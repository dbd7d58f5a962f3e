// Which resource types to watch and how: matches the configured selectors
// against the CRDs in the cluster (first matching selector wins) and builds
// each collector's settings, filling what the config leaves open from the CRD
// schema. Pure: CRD summaries and config in, plans out.
import type { ResourceOptions, ResourceSelector } from "../config/schema.ts";
import { type CrdSummary, pickVersion, type VersionSummary } from "../core/crd.ts";
import { defaultProjectionSettings, type ProjectionSettings } from "../core/project.ts";
import { globMatch, labelsMatch } from "../core/selectors.ts";
import type { ResourceIdentity } from "../core/state.ts";

export interface CollectorPlan {
  /** `group/resource`: one collector per resource type. */
  key: string;
  identity: ResourceIdentity;
  statusSubresource: boolean;
  projection: ProjectionSettings;
  phases: string[];
  options: ResourceOptions;
  /** Equal fingerprints: the running collector can stay as it is. */
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

function plan(
  identity: ResourceIdentity,
  version: VersionSummary | undefined,
  options: ResourceOptions,
): CollectorPlan {
  const projection = projectionFor(options, version);
  const statusSubresource = version?.statusSubresource ?? true;
  const phases = version?.phaseEnum ?? [];
  return {
    key: `${identity.group}/${identity.resource}`,
    identity,
    statusSubresource,
    projection,
    phases,
    options,
    fingerprint: JSON.stringify([identity, statusSubresource, projection, phases, options]),
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
