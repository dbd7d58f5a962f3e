// The per-resource options, each declared once (see option.ts): any resource
// entry may give them, and a discovery entry's `kinds:` overrides may give
// them again for some of its kinds. Where each goes: the collector reads
// namespaces, labelSelector, mode, maxSeries, maxReasons and labels'
// names (collectors/selection.ts settingsFor); the rest decides how objects
// are read and judged (collectors/shape-settings.ts) and reaches the core as
// its KindSettings.
import { maxValueFields } from "../core/detect/schema.ts";
import type { MappedPhaseResult } from "../core/judge/phase-result.ts";
import { type FamilyRules, noFamilyRules } from "../core/series/family-selection.ts";
import { familyRules, familyRulesSchema } from "./metrics-rules.ts";
import {
  choice,
  custom,
  duration,
  type Option,
  type OptionValues,
  tableDefaults,
  text,
  whole,
} from "./option.ts";
import {
  dottedPath,
  type LabelMapping,
  labelMappings,
  phaseResults,
  phaseTransitions,
} from "./resource-fields.ts";
import { type ReadinessOption, readinessOption, readinessSchema } from "./validate-cel.ts";
import { type StateOption, stateOptions, stateOptionsSchema } from "./validate-states.ts";
import {
  noResourceTracing,
  type ResourceTracing,
  resourceTracing,
  resourceTracingSchema,
} from "./validate-tracing-joins.ts";
import { maxValues, type ValueOption, valueOptions, valueOptionsSchema } from "./validate-values.ts";
import { excludedNamespaces, maxExcludedNamespaces, namespaceList } from "./watch-limits.ts";

const fieldPath = (example: string) => ({
  pattern: dottedPath,
  what: `a dotted field path such as ${example}`,
});

export const resourceOptionTable = {
  namespaces: custom<string[]>({
    key: "namespaces",
    doc: "Watch only these namespaces (each is a list/watch of its own; at most 500). Empty: all.",
    default: [],
    shown: "[]",
    schema: (Type) =>
      Type.Array(Type.String({ pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", maxLength: 63 }), {
        maxItems: 500,
      }),
    read: (c, path, value) => namespaceList(c, path, value),
  }),
  excludeNamespaces: custom<string[]>({
    key: "excludeNamespaces",
    doc: "Watch every namespace but these (kube-state-metrics' --namespaces-denylist): a field selector on the watch, so their objects never reach the exporter; at most 100.",
    default: [],
    shown: "[]",
    schema: (Type) =>
      Type.Array(Type.String({ pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", maxLength: 63 }), {
        maxItems: maxExcludedNamespaces,
      }),
    read: (c, path, value) => excludedNamespaces(c, path, value),
  }),
  labelSelector: text("labelSelector", "Watch only the objects with these labels (a label selector)."),
  conditionsPath: text(
    "conditionsPath",
    "Where the conditions are. Unset: detected from the CRD schema (or learned), else status.conditions.",
    { pattern: dottedPath, what: "a dotted field path" },
  ),
  observedGenerationPath: text(
    "observedGenerationPath",
    "Where the observed generation is. Unset: detected, else status.observedGeneration.",
    { pattern: dottedPath, what: "a dotted field path" },
  ),
  phasePath: text("phasePath", "Where the phase is. Unset: detected, else status.phase.", {
    pattern: dottedPath,
    what: "a dotted field path",
  }),
  heartbeatField: text(
    "heartbeatField",
    "A timestamp field exported as cr_heartbeat_timestamp_seconds. Unset: none.",
    { pattern: dottedPath, what: "a dotted field path" },
  ),
  readyCondition: text(
    "readyCondition",
    "The condition that means healthy. Unset: per kind, Ready, else Succeeded, else Available (from the CRD's enum or the first objects); a kind with none is judged by its phase.",
    { pattern: /^[A-Za-z0-9][-A-Za-z0-9_.]*$/, what: "a condition type such as Ready" },
  ),
  readiness: custom<ReadinessOption | undefined>({
    key: "readiness",
    doc: 'Where configuration cannot say it: {cel: "<expression>"} over `object` (the custom resource as JSON; integral numbers are ints) returning "Current", "InProgress" or "Failed" (or a bool: true Current, false InProgress) decides cr_status for the kind instead of its readiness condition, phase and states (Terminating still comes first). Not with readyCondition or phaseResults in the same mapping. An evaluation that fails (a missing field, wrong types, the cost limit) makes the object Unknown; it is counted in cr_exporter_cel_errors_total{field="readiness.cel", reason} and logged at most once per kind and reason a minute (docs/configuration.md#cel).',
    default: undefined,
    shown: "",
    schema: readinessSchema,
    read: (c, path, value) => readinessOption(c, path, value),
  }),
  failedAfterSeconds: duration(
    "failedAfter",
    "How long the readiness condition may stay away from its desired status before cr_status says Failed.",
    300,
    "5m",
  ),
  phaseResults: custom<Record<string, MappedPhaseResult> | undefined>({
    key: "phaseResults",
    doc: "Phase → Current, InProgress or Failed in cr_status; a listed phase decides whatever the conditions say. Unset: the default table, for kinds without a readiness condition.",
    default: undefined,
    shown: "",
    schema: (Type) =>
      Type.Record(Type.String(), Type.Union(["Current", "InProgress", "Failed"].map((v) => Type.Literal(v)))),
    read: (c, path, value) => phaseResults(c, path, value),
  }),
  states: custom<StateOption[] | undefined>({
    key: "states",
    doc: "String fields exported as cr_state{field, value}, with the values that mean ready and failed. Unset: Argo CD's health and sync detected; [] reads none.",
    default: undefined,
    shown: "",
    schema: stateOptionsSchema,
    read: (c, path, value) => stateOptions(c, path, value),
  }),
  values: custom<ValueOption[]>({
    key: "values",
    doc: 'Numeric fields exported as cr_value{field} (one series per object each): [{path, name?, type?}], name defaulting to the path\'s last segment, type auto (numbers and booleans as they are, RFC 3339 strings as Unix seconds, quantities such as 2Gi scaled), number, quantity, timestamp or boolean. A missing or unreadable value has no series; an unreadable one is counted in cr_exporter_values_unreadable_total and logged once per value. Or computed: {cel: "<expression>", name} over `object` returning a number, a bool (1 or 0), a timestamp (Unix seconds) or a duration (seconds); null means no series; a failed evaluation has no series and is counted in cr_exporter_cel_errors_total{field: name, reason} (docs/configuration.md#cel).',
    default: [],
    shown: "[]",
    schema: valueOptionsSchema,
    read: (c, path, value) => valueOptions(c, path, value) ?? [],
  }),
  valueCandidates: choice(
    "valueCandidates",
    `The CRD schema's numeric and date-time status fields (outside lists, at most ${maxValueFields}; none with crdDiscovery: false) that values does not read. propose: listed by explain and cr_exporter_value_candidate_info only. export: each becomes a cr_value{field} series per object instead, as a values entry would (date-time fields as timestamps, integers and numbers as numbers), named by the path's last segment, or by the whole path (status.a.ready) where a configured value or another candidate has that name; as many as fit beside values within ${maxValues} per object, in schema order (the rest stay proposed). A values entry at the same path wins.`,
    ["propose", "export"],
    "propose",
  ),
  suspendPath: text(
    "suspendPath",
    'A field that suspends the object when true (or "true"/"on"). Unset: spec.suspend, else spec.paused, when the CRD declares a boolean there.',
    fieldPath("spec.suspend"),
  ),
  suspendAnnotation: text(
    "suspendAnnotation",
    'An annotation that suspends the object when present with any value but "false"/"off".',
    {
      pattern: /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/,
      what: "an annotation key such as crossplane.io/paused",
    },
  ),
  labels: custom<LabelMapping[]>({
    key: "labels",
    doc: "Extra labels copied from the object's labels, annotations or scalar fields (an allow-list; each value is part of every series' identity).",
    default: [],
    shown: "[]",
    schema: (Type) =>
      Type.Array(
        Type.Object(
          {
            fromLabel: Type.Optional(Type.String({ minLength: 1 })),
            fromAnnotation: Type.Optional(Type.String({ minLength: 1 })),
            fromPath: Type.Optional(Type.String({ pattern: dottedPath.source })),
            name: Type.Optional(Type.String({ pattern: "^[a-zA-Z_][a-zA-Z0-9_]*$" })),
          },
          { additionalProperties: false, minProperties: 1 },
        ),
      ),
    read: (c, path, value) => labelMappings(c, path, value),
  }),
  maxReasons: whole(
    "maxReasons",
    'Distinct cr_condition_reason values kept per kind; later ones become "other".',
    1,
    20,
  ),
  phaseTransitions: custom<Record<string, string[]> | undefined>({
    key: "phaseTransitions",
    doc: "Phase → the phases it may move to; other changes count in cr_phase_illegal_transitions_total. Unset: none checked.",
    default: undefined,
    shown: "",
    schema: (Type) => Type.Record(Type.String(), Type.Array(Type.String({ minLength: 1 }))),
    read: (c, path, value) => phaseTransitions(c, path, value),
  }),
  mode: choice(
    "mode",
    "objects: series per object; aggregate: counts per namespace instead.",
    ["objects", "aggregate"],
    "objects",
  ),
  maxSeries: whole("maxSeries", "Cap on the per-object series of this resource (0: no cap).", 0, 0),
  metrics: custom<FamilyRules>({
    key: "metrics",
    doc: "Which families this resource exports, refining the global metrics rules ({allow | deny, optIn}).",
    default: noFamilyRules,
    shown: "",
    schema: familyRulesSchema,
    read: (c, path, value, context) => familyRules(c, path, value, context.prefix),
  }),
  tracing: custom<ResourceTracing>({
    key: "tracing",
    doc: "What this resource's root spans join (docs/tracing.md#joins): {parent: owner | source} makes a generation root the child of its controller owner's (or its source's) root while that is open, instead of a trace of its own (it links to them either way); {source: {group, kind, name, namespace?, kindFrom?}} names the source, each part {fromLabel | fromAnnotation | fromPath | value} (Flux: fromLabel kustomize.toolkit.fluxcd.io/name and /namespace; spec.sourceRef: fromPath). {operation: {startedAt, finishedAt, phase?}} (dotted paths; Argo CD: status.operationState.startedAt, .finishedAt, .phase) traces a kind without generation roots by operations: one `<Kind> operation` root per operation, keyed by its server-written start, which children naming it as owner or source join (docs/tracing.md, \"Parents without generation roots\"). Unset: links to the controller owner only.",
    default: noResourceTracing,
    shown: "",
    schema: resourceTracingSchema,
    read: (c, path, value) => resourceTracing(c, path, value),
  }),
} satisfies Record<string, Option<unknown>>;

/** Per-resource options; every field is optional in the file. */
export type ResourceOptions = OptionValues<typeof resourceOptionTable>;

export const defaultResourceOptions: ResourceOptions = tableDefaults(resourceOptionTable);
