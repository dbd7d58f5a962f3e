// Validation of the `resources` entries: selectors (explicit or discovery)
// and the per-resource options.
import { sanitizeLabelName } from "../core/exposition.ts";
import type { Checker, Raw } from "./checker.ts";
import { familyRules } from "./metrics-rules.ts";
import {
  defaultResourceOptions,
  type LabelMapping,
  type ResourceOptions,
  type ResourceSelector,
} from "./schema.ts";
import { kindOverrides } from "./validate-overrides.ts";
import { stateOptions } from "./validate-states.ts";
import { namespaceList } from "./watch-limits.ts";

export const dottedPath = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;
export const dns1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
export const prefixPattern = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

const optionKeys = [
  "namespaces",
  "labelSelector",
  "conditionsPath",
  "observedGenerationPath",
  "phasePath",
  "heartbeatField",
  "readyCondition",
  "failedAfter",
  "phaseResults",
  "states",
  "suspendPath",
  "suspendAnnotation",
  "labels",
  "maxReasons",
  "phaseTransitions",
  "mode",
  "maxSeries",
  "metrics",
] as const;

const selectorKeys = [
  "group",
  "version",
  "resource",
  "kind",
  "namespaced",
  "groups",
  "categories",
  "crdSelector",
] as const;

function labelMappings(c: Checker, path: string, value: unknown): LabelMapping[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value))
    return c.fail(path, "a list of {fromLabel|fromAnnotation|fromPath, name}", value);
  const out: LabelMapping[] = [];
  const reserved = new Set([
    "group",
    "kind",
    "namespace",
    "name",
    "type",
    "status",
    "reason",
    "phase",
    "result",
    "field",
    "value",
  ]);
  const names = new Set<string>();
  value.forEach((item, i) => {
    const p = `${path}[${i}]`;
    const raw = c.object(p, item, ["fromLabel", "fromAnnotation", "fromPath", "name"]);
    if (!raw) return;
    const fromLabel = c.string(`${p}.fromLabel`, raw.fromLabel);
    const fromAnnotation = c.string(`${p}.fromAnnotation`, raw.fromAnnotation);
    const fromPath = c.string(
      `${p}.fromPath`,
      raw.fromPath,
      dottedPath,
      "a dotted path to a scalar field such as spec.suspend",
    );
    const given = [fromLabel, fromAnnotation, fromPath].filter((v) => v !== undefined);
    if (given.length !== 1) {
      if ([raw.fromLabel, raw.fromAnnotation, raw.fromPath].filter((v) => v !== undefined).length !== 1)
        c.problems.push(`${p}: expected exactly one of fromLabel, fromAnnotation or fromPath`);
      return;
    }
    const key = given[0] as string;
    const name =
      c.string(`${p}.name`, raw.name, /^[a-zA-Z_][a-zA-Z0-9_]*$/, "a Prometheus label name") ??
      sanitizeLabelName(key);
    if (reserved.has(name)) {
      c.problems.push(`${p}.name: "${name}" is reserved by the exporter's own labels; choose another name`);
      return;
    }
    if (names.has(name)) {
      c.problems.push(`${p}.name: "${name}" is given twice`);
      return;
    }
    names.add(name);
    const from = fromLabel !== undefined ? "label" : fromAnnotation !== undefined ? "annotation" : "path";
    out.push({ from, key, name });
  });
  return out;
}

function phaseTransitions(c: Checker, path: string, value: unknown): Record<string, string[]> | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return c.fail(path, "a mapping from phase to the list of phases it may move to", value);
  }
  const out: Record<string, string[]> = {};
  for (const [from, to] of Object.entries(value)) {
    const list = c.stringList(`${path}.${from}`, to);
    if (list) out[from] = list;
  }
  return out;
}

const phaseResultValues = ["Current", "InProgress", "Failed"] as const;

function phaseResults(
  c: Checker,
  path: string,
  value: unknown,
): Record<string, (typeof phaseResultValues)[number]> | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return c.fail(path, `a mapping from phase to one of ${phaseResultValues.join(", ")}`, value);
  }
  const out: Record<string, (typeof phaseResultValues)[number]> = {};
  for (const [phase, result] of Object.entries(value)) {
    const checked = c.oneOf(`${path}.${phase}`, result, phaseResultValues);
    if (checked) out[phase] = checked;
  }
  return out;
}

function resourceOptions(c: Checker, path: string, raw: Raw, prefix: string): ResourceOptions {
  const d = defaultResourceOptions;
  if (raw.conditionReasons !== undefined) {
    c.problems.push(
      `${path}.conditionReasons: no longer an option: cr_condition_reason is in the default set; ` +
        "turn it off with metrics: { deny: [cr_condition_reason] }",
    );
  }
  return {
    namespaces: namespaceList(c, `${path}.namespaces`, raw.namespaces) ?? d.namespaces,
    labelSelector: c.string(`${path}.labelSelector`, raw.labelSelector),
    conditionsPath: c.string(`${path}.conditionsPath`, raw.conditionsPath, dottedPath, "a dotted field path"),
    observedGenerationPath: c.string(
      `${path}.observedGenerationPath`,
      raw.observedGenerationPath,
      dottedPath,
      "a dotted field path",
    ),
    phasePath: c.string(`${path}.phasePath`, raw.phasePath, dottedPath, "a dotted field path"),
    heartbeatField: c.string(`${path}.heartbeatField`, raw.heartbeatField, dottedPath, "a dotted field path"),
    readyCondition:
      c.string(
        `${path}.readyCondition`,
        raw.readyCondition,
        /^[A-Za-z0-9][-A-Za-z0-9_.]*$/,
        "a condition type such as Ready",
      ) ?? d.readyCondition,
    failedAfterSeconds: c.duration(`${path}.failedAfter`, raw.failedAfter) ?? d.failedAfterSeconds,
    phaseResults: phaseResults(c, `${path}.phaseResults`, raw.phaseResults),
    states: stateOptions(c, `${path}.states`, raw.states),
    suspendPath: c.string(
      `${path}.suspendPath`,
      raw.suspendPath,
      dottedPath,
      "a dotted field path such as spec.suspend",
    ),
    suspendAnnotation: c.string(
      `${path}.suspendAnnotation`,
      raw.suspendAnnotation,
      /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/,
      "an annotation key such as crossplane.io/paused",
    ),
    labels: labelMappings(c, `${path}.labels`, raw.labels) ?? d.labels,
    maxReasons: c.integer(`${path}.maxReasons`, raw.maxReasons, 1) ?? d.maxReasons,
    phaseTransitions: phaseTransitions(c, `${path}.phaseTransitions`, raw.phaseTransitions),
    mode: c.oneOf(`${path}.mode`, raw.mode, ["objects", "aggregate"] as const) ?? d.mode,
    maxSeries: c.integer(`${path}.maxSeries`, raw.maxSeries, 0) ?? d.maxSeries,
    metrics: familyRules(c, `${path}.metrics`, raw.metrics, prefix) ?? d.metrics,
  };
}

export function selector(
  c: Checker,
  path: string,
  value: unknown,
  crdDiscovery: boolean,
  prefix: string,
): ResourceSelector | undefined {
  // conditionReasons is accepted as a key only to explain where it went.
  const raw = c.object(path, value, [...selectorKeys, ...optionKeys, "conditionReasons", "kinds"]);
  if (!raw) return undefined;
  const s: ResourceSelector = {
    group: c.string(`${path}.group`, raw.group, dns1123, "an API group such as example.com"),
    version: c.string(
      `${path}.version`,
      raw.version,
      /^v[0-9]+((alpha|beta)[0-9]+)?$/,
      "a version such as v1",
    ),
    resource: c.string(
      `${path}.resource`,
      raw.resource,
      /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/,
      "a plural resource name",
    ),
    kind: c.string(`${path}.kind`, raw.kind, /^[A-Z][A-Za-z0-9]*$/, "a Kind such as Widget"),
    namespaced: c.boolean(`${path}.namespaced`, raw.namespaced),
    groups: c.stringList(`${path}.groups`, raw.groups) ?? [],
    categories: c.stringList(`${path}.categories`, raw.categories) ?? [],
    crdSelector: c.string(`${path}.crdSelector`, raw.crdSelector),
    options: resourceOptions(c, path, raw, prefix),
    overrides: [],
  };
  if (raw.kinds !== undefined) {
    const entryOptions = Object.fromEntries(
      Object.entries(raw).filter(([k]) => optionKeys.includes(k as never)),
    );
    s.overrides = kindOverrides(
      c,
      `${path}.kinds`,
      raw.kinds,
      entryOptions,
      optionKeys,
      (checker, at, options) => resourceOptions(checker, at, options, prefix),
    );
  }
  const explicit = s.group !== undefined || s.resource !== undefined || s.kind !== undefined;
  const discovery = s.groups.length > 0 || s.categories.length > 0 || s.crdSelector !== undefined;
  if (explicit && discovery) {
    c.problems.push(
      `${path}: give either group with resource/kind (explicit) or groups/categories/crdSelector (discovery), not both`,
    );
  } else if (!explicit && !discovery) {
    c.problems.push(
      `${path}: expected group with resource or kind, or one of groups, categories, crdSelector`,
    );
  } else if (explicit && (s.group === undefined || (s.resource === undefined && s.kind === undefined))) {
    c.problems.push(`${path}: an explicit resource needs group and resource (or kind)`);
  } else if (
    explicit &&
    !crdDiscovery &&
    (!s.version || !s.resource || !s.kind || s.namespaced === undefined)
  ) {
    c.problems.push(`${path}: with crdDiscovery: false, give group, version, resource, kind and namespaced`);
  } else if (explicit && raw.kinds !== undefined) {
    c.problems.push(
      `${path}.kinds: per-kind options belong to discovery entries; an explicit entry's own options are its kind's`,
    );
  } else if (discovery && !crdDiscovery) {
    c.problems.push(`${path}: discovery (groups/categories/crdSelector) needs crdDiscovery: true`);
  }
  return s;
}
