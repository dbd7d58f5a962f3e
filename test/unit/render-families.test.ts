// Golden tables per family, in the kube-state-metrics style: an object (or a
// short history of one) through the pure core with only that family
// selected → the exact lines it renders. Every family of the catalog has a
// table, and each family's documented cost matches what it renders.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { changedInputs } from "../../src/core/change/entry-diff.ts";
import { newKindLearning } from "../../src/core/change/label-bounds.ts";
import {
  applyChange,
  applyWarning,
  type KindSettings,
  shapeOf,
} from "../../src/core/change/object-update.ts";
import type { ObjectEntry } from "../../src/core/entry.ts";
import type { WarningEvent } from "../../src/core/events/warning-event.ts";
import type { ObservedGenerationSource } from "../../src/core/judge/generations.ts";
import { defaultReadinessRules } from "../../src/core/judge/readiness.ts";
import { defaultProjectionSettings, type ValueKind } from "../../src/core/project/project.ts";
import { inputBit, type ObjectFamilyKey, objectFamilies, slotOf } from "../../src/core/series/catalog.ts";
import { fromByteString } from "../../src/core/series/exposition.ts";
import { newKindRender, renderSeries } from "../../src/core/series/render.ts";
import type { ConditionState } from "../../src/core/state.ts";
import { cond, t, type WidgetInit, widget } from "../support/objects.ts";
import { slotLines } from "../support/series.ts";

const NOW = t("2026-01-01T01:00:00Z");
const L = 'group="example.com",kind="Widget",namespace="ns1",name="w1"';

interface Options {
  source?: ObservedGenerationSource;
  phaseEnum?: string[];
  maxReasons?: number;
  heartbeat?: boolean;
  now?: number;
  /** The kind has no status subresource (spec compared by digest). */
  noStatusSubresource?: boolean;
  /** State fields read from status.health.status and status.sync.status, with their declared values. */
  stateValues?: Record<string, string[]>;
  /** How status.replicas is read (`values`); default auto. */
  replicasKind?: ValueKind;
  /** Warning events applied after the history: [reason label, new occurrences]. */
  warnings?: [string, number][];
}

const statePaths = { health: ["status", "health", "status"], sync: ["status", "sync", "status"] };

function kindFor(selected: number, o: Options): KindSettings {
  return {
    projection: {
      ...defaultProjectionSettings,
      heartbeatPath: o.heartbeat ? ["status", "lastHeartbeatTime"] : undefined,
      specDigest: o.noStatusSubresource ?? false,
      states: Object.entries(statePaths).map(([name, path]) => ({ name, path })),
      values: [
        { name: "replicas", path: ["status", "replicas"], kind: o.replicasKind ?? "auto" },
        { name: "memory", path: ["status", "memory"], kind: "quantity" },
        { name: "notAfter", path: ["status", "notAfter"], kind: "auto" },
      ],
      suspendPath: ["spec", "suspend"],
      suspendAnnotation: "example.com/paused",
    },
    readiness: defaultReadinessRules,
    generationSource: o.source ?? "status",
    phaseTransitions: undefined,
    render: newKindRender({ group: "example.com", kind: "Widget", prefix: "cr_", selected }),
  };
}

/** Applies each version of the object in turn; returns the last entry. */
function entryAfter(key: ObjectFamilyKey | "all", history: WidgetInit[], o: Options = {}): ObjectEntry {
  const selected = key === "all" ? -1 : 1 << slotOf[key];
  const kind = kindFor(selected, o);
  const learning = newKindLearning({
    phaseEnum: o.phaseEnum ?? [],
    maxReasons: o.maxReasons ?? 20,
    stateValues: o.stateValues,
  });
  let entry: ObjectEntry | undefined;
  history.forEach((init, i) => {
    entry = applyChange(
      entry,
      widget({ resourceVersion: String(i + 1), ...init }),
      kind,
      learning,
      o.now ?? NOW,
    ).entry;
  });
  for (const [reason, occurrences] of o.warnings ?? [])
    entry = applyWarning(entry as ObjectEntry, kind, warningEvent(reason), reason, occurrences);
  return entry as ObjectEntry;
}

const warningEvent = (reason: string): WarningEvent => ({
  uid: `e-${reason}`,
  regarding: { group: "example.com", kind: "Widget", namespace: "ns1", name: "w1", uid: "u1" },
  reason,
  message: `${reason} happened`,
  count: 1,
  firstAt: NOW,
  lastAt: NOW,
});

function rendered(key: ObjectFamilyKey, history: WidgetInit[], o: Options = {}): string {
  const entry = entryAfter(key, history, o);
  return fromByteString(slotLines(entry.series, slotOf[key]));
}

type Case = [name: string, history: WidgetInit[], expected: string[], options?: Options];

const ready = (status: string, extra = {}) => ({
  conditions: [cond("Ready", status, "2026-01-01T00:30:00Z", extra)],
});
const spec = [
  { manager: "k", operation: "Update", time: "2026-01-01T00:50:00Z", fieldsV1: { "f:spec": {} } },
];

const tables: Record<ObjectFamilyKey, Case[]> = {
  condition: [
    [
      "one series per condition, labelled with its status",
      [{ status: { conditions: [cond("Ready", "True"), cond("Degraded", "false"), { type: "Odd" }] } }],
      [
        `cr_condition{${L},type="Ready",status="True"} 1`,
        `cr_condition{${L},type="Degraded",status="False"} 1`,
        `cr_condition{${L},type="Odd",status="Unknown"} 1`,
      ],
    ],
    [
      "hostile and non-ASCII types are escaped",
      [{ status: { conditions: [cond('Quote"Back\\slash\nNew ü', "True")] } }],
      [`cr_condition{${L},type="Quote\\"Back\\\\slash\\nNew ü",status="True"} 1`],
    ],
    ["no conditions, no series", [{ status: { phase: "Running" } }], []],
    [
      "a status change replaces the series",
      [{ status: ready("False") }, { status: ready("True") }],
      [`cr_condition{${L},type="Ready",status="True"} 1`],
    ],
  ],
  conditionLastTransition: [
    [
      "lastTransitionTime as Unix seconds; without it, when the exporter first saw the status",
      [
        {
          status: {
            conditions: [cond("Ready", "True", "2026-01-01T00:02:00Z"), { type: "X", status: "True" }],
          },
        },
      ],
      [
        `cr_condition_last_transition_timestamp_seconds{${L},type="Ready"} 1767225720`,
        `cr_condition_last_transition_timestamp_seconds{${L},type="X"} ${NOW}`,
      ],
    ],
  ],
  conditionReason: [
    [
      "the current reason; none when empty",
      [
        {
          status: {
            conditions: [
              cond("Ready", "False", undefined, { reason: "Waiting" }),
              cond("X", "True", undefined, { reason: "" }),
            ],
          },
        },
      ],
      [`cr_condition_reason{${L},type="Ready",reason="Waiting"} 1`],
    ],
    [
      "reasons past maxReasons per kind become other",
      [
        {
          status: {
            conditions: [
              cond("A", "True", undefined, { reason: "First" }),
              cond("B", "True", undefined, { reason: "Second" }),
            ],
          },
        },
      ],
      [
        `cr_condition_reason{${L},type="A",reason="First"} 1`,
        `cr_condition_reason{${L},type="B",reason="other"} 1`,
      ],
      { maxReasons: 1 },
    ],
    [
      "escaped reason",
      [{ status: { conditions: [cond("Ready", "False", undefined, { reason: 'Bad"Ä' })] } }],
      [`cr_condition_reason{${L},type="Ready",reason="Bad\\"Ä"} 1`],
    ],
  ],
  conditionStale: [
    [
      "1 when the condition's observedGeneration is behind, 0 when equal, none without it",
      [
        {
          generation: 2,
          status: {
            conditions: [
              cond("Ready", "True", undefined, { observedGeneration: 1 }),
              cond("Synced", "True", undefined, { observedGeneration: 2 }),
              cond("Other", "True"),
            ],
          },
        },
      ],
      [`cr_condition_stale{${L},type="Ready"} 1`, `cr_condition_stale{${L},type="Synced"} 0`],
    ],
  ],
  generation: [["metadata.generation", [{ generation: 3 }], [`cr_metadata_generation{${L}} 3`]]],
  observedGeneration: [
    [
      "status.observedGeneration",
      [{ status: { observedGeneration: 2 } }],
      [`cr_status_observed_generation{${L}} 2`],
    ],
    ["absent when the status has none", [{ status: ready("True", { observedGeneration: 1 }) }], []],
  ],
  generationLag: [
    [
      "generation − status.observedGeneration",
      [{ generation: 3, status: { observedGeneration: 2 } }],
      [`cr_generation_lag{${L}} 1`],
    ],
    ["floored at 0", [{ generation: 1, status: { observedGeneration: 4 } }], [`cr_generation_lag{${L}} 0`]],
    [
      "from the ready condition when the kind's source is the condition",
      [{ generation: 2, status: ready("True", { observedGeneration: 1 }) }],
      [`cr_generation_lag{${L}} 1`],
      { source: "condition" },
    ],
    [
      "status first, then the ready condition, for a schemaless status",
      [{ generation: 3, status: { observedGeneration: 3, ...ready("True", { observedGeneration: 1 }) } }],
      [`cr_generation_lag{${L}} 0`],
      { source: "status_or_condition" },
    ],
    [
      "unknown without an observed generation",
      [{ generation: 2, status: ready("True", { observedGeneration: 1 }) }],
      [],
    ],
  ],
  generationRequested: [
    ["creation time for generation 1", [{}], [`cr_generation_requested_timestamp_seconds{${L}} 1767225600`]],
    [
      "the last spec write in managedFields",
      [{ generation: 2, managedFields: spec, status: { observedGeneration: 1 } }],
      [`cr_generation_requested_timestamp_seconds{${L}} 1767228600`],
    ],
    [
      "first seen waiting without managedFields: when first seen",
      [{ generation: 2, status: { observedGeneration: 1 } }],
      [`cr_generation_requested_timestamp_seconds{${L}} ${NOW}`],
    ],
    [
      "first seen caught up without managedFields: unknown",
      [{ generation: 2, status: { observedGeneration: 2 } }],
      [],
    ],
  ],
  phase: [
    ["the current phase", [{ status: { phase: "Running" } }], [`cr_phase{${L},phase="Running"} 1`]],
    [
      "a phase outside the CRD's enum is other",
      [{ status: { phase: "Exploded" } }],
      [`cr_phase{${L},phase="other"} 1`],
      { phaseEnum: ["Pending", "Running"] },
    ],
  ],
  state: [
    [
      "one series per state field set, labelled with its value",
      [{ status: { health: { status: "Degraded" }, sync: { status: "Synced" } } }],
      [`cr_state{${L},field="health",value="Degraded"} 1`, `cr_state{${L},field="sync",value="Synced"} 1`],
    ],
    ["no state field, no series", [{ status: { health: {}, sync: { status: "" } } }], []],
    [
      "a value outside the declared ones is other",
      [{ status: { health: { status: "Exploded" } } }],
      [`cr_state{${L},field="health",value="other"} 1`],
      { stateValues: { health: ["Healthy", "Degraded"] } },
    ],
    [
      "a value change replaces the series",
      [{ status: { sync: { status: "OutOfSync" } } }, { status: { sync: { status: "Synced" } } }],
      [`cr_state{${L},field="sync",value="Synced"} 1`],
    ],
  ],
  value: [
    [
      "one series per configured value set: numbers as they are, quantities scaled, timestamps as Unix seconds",
      [{ status: { replicas: 3, memory: "1536Mi", notAfter: "2026-03-01T00:00:00Z" } }],
      [
        `cr_value{${L},field="replicas"} 3`,
        `cr_value{${L},field="memory"} 1610612736`,
        `cr_value{${L},field="notAfter"} ${t("2026-03-01T00:00:00Z")}`,
      ],
    ],
    ["no value set, no series", [{ status: {} }], []],
    [
      "an unreadable value has no series, never a wrong 0",
      [{ status: { replicas: "three", memory: "lots", notAfter: "tomorrow" } }],
      [],
    ],
    [
      "a change of value re-renders it",
      [{ status: { replicas: 1 } }, { status: { replicas: 4 } }],
      [`cr_value{${L},field="replicas"} 4`],
    ],
    ["booleans are 1 and 0", [{ status: { replicas: false } }], [`cr_value{${L},field="replicas"} 0`]],
    [
      "a number read as a timestamp is refused",
      [{ status: { replicas: 5 } }],
      [],
      { replicasKind: "timestamp" },
    ],
    [
      "a numeric string read as a number",
      [{ status: { replicas: "12" } }],
      [`cr_value{${L},field="replicas"} 12`],
      { replicasKind: "number" },
    ],
  ],
  status: [
    ["Ready=True: Current", [{ status: ready("True") }], [`cr_status{${L},result="Current"} 1`]],
    [
      "Ready=False for less than failedAfter: InProgress",
      [{ status: ready("False") }],
      [`cr_status{${L},result="InProgress"} 1`],
      { now: t("2026-01-01T00:31:00Z") },
    ],
    [
      "Ready=False for longer than failedAfter: Failed",
      [{ status: ready("False") }],
      [`cr_status{${L},result="Failed"} 1`],
    ],
    ["no status: Unknown", [{}], [`cr_status{${L},result="Unknown"} 1`]],
    [
      "terminating",
      [{ deletionTimestamp: "2026-01-01T00:55:00Z" }],
      [`cr_status{${L},result="Terminating"} 1`],
    ],
  ],
  deletion: [
    [
      "while terminating",
      [{ deletionTimestamp: "2026-01-01T00:55:00Z" }],
      [`cr_deletion_timestamp_seconds{${L}} 1767228900`],
    ],
    ["none otherwise", [{}], []],
  ],
  suspended: [
    ["spec.suspend: true", [{ spec: { suspend: true } }], [`cr_suspended{${L}} 1`]],
    [
      "the suspend annotation, on or true",
      [{ annotations: { "example.com/paused": "On" } }],
      [`cr_suspended{${L}} 1`],
    ],
    [
      "not suspended: a string at the path that is not a switch, the annotation off, another annotation",
      [
        {
          spec: { suspend: "yes" },
          annotations: { "example.com/paused": "false", "example.com/other": "true" },
        },
      ],
      [],
    ],
    ["resumed: the series ends", [{ spec: { suspend: true } }, { spec: { suspend: false } }], []],
  ],
  heartbeat: [
    [
      "the heartbeat field as Unix seconds",
      [{ status: { lastHeartbeatTime: "2026-01-01T00:59:30Z" } }],
      [`cr_heartbeat_timestamp_seconds{${L}} 1767229170`],
      { heartbeat: true },
    ],
    ["none without heartbeatField", [{ status: { lastHeartbeatTime: "2026-01-01T00:59:30Z" } }], []],
  ],
  statusUpdates: [
    ["0 when first seen", [{ status: ready("False") }], [`cr_status_updates_total{${L}} 0`]],
    [
      "a meaningful status write",
      [{ status: ready("False") }, { status: ready("True") }],
      [`cr_status_updates_total{${L}} 1`],
    ],
  ],
  noopUpdates: [
    [
      "a write that changed only a volatile timestamp",
      [{ status: ready("True") }, { status: ready("True", { lastUpdateTime: "2026-01-01T00:59:00Z" }) }],
      [`cr_status_noop_updates_total{${L}} 1`],
    ],
    [
      "a write that changed a message is a status update, not a no-op",
      [{ status: ready("True") }, { status: ready("True", { message: "again" }) }],
      [`cr_status_noop_updates_total{${L}} 0`],
    ],
    [
      "a label change is not a status write",
      [{ status: ready("True") }, { labels: { a: "b" }, status: ready("True") }],
      [`cr_status_noop_updates_total{${L}} 0`],
    ],
  ],
  specGenerationChanges: [
    [
      "generation changes seen",
      [{ generation: 1 }, { generation: 2 }, { generation: 3 }],
      [`cr_spec_generation_changes_total{${L}} 2`],
    ],
    [
      "without a status subresource, a bump whose spec is unchanged (a status write) is not counted",
      [
        { generation: 1 },
        { generation: 2, status: { phase: "Running" } },
        { generation: 3, status: { phase: "Failed" } },
      ],
      [`cr_spec_generation_changes_total{${L}} 0`],
      { noStatusSubresource: true },
    ],
  ],
  conditionTransitions: [
    [
      "by the new status, all three statuses from the start",
      [{ status: ready("False") }, { status: ready("True") }],
      [
        `cr_condition_transitions_total{${L},type="Ready",status="True"} 1`,
        `cr_condition_transitions_total{${L},type="Ready",status="False"} 0`,
        `cr_condition_transitions_total{${L},type="Ready",status="Unknown"} 0`,
      ],
    ],
    [
      "a condition's first appearance on a watched object is not a transition, its first change is",
      [{ status: { phase: "Running" } }, { status: ready("False") }, { status: ready("True") }],
      [
        `cr_condition_transitions_total{${L},type="Ready",status="True"} 1`,
        `cr_condition_transitions_total{${L},type="Ready",status="False"} 0`,
        `cr_condition_transitions_total{${L},type="Ready",status="Unknown"} 0`,
      ],
    ],
    [
      "a condition that appears on a watched object gets its three series at 0",
      [{ status: { phase: "Running" } }, { status: ready("False") }],
      [
        `cr_condition_transitions_total{${L},type="Ready",status="True"} 0`,
        `cr_condition_transitions_total{${L},type="Ready",status="False"} 0`,
        `cr_condition_transitions_total{${L},type="Ready",status="Unknown"} 0`,
      ],
    ],
    [
      "a condition that goes away takes its series along",
      [{ status: ready("False") }, { status: ready("True") }, { status: { phase: "Running" } }],
      [],
    ],
  ],
  objectWarningEvents: [
    ["no warning seen: no series", [{ status: ready("True") }], []],
    [
      "occurrences add up per reason label, in the order the reasons came",
      [{ status: ready("False") }],
      [
        `cr_object_warning_events_total{${L},reason="BackOff"} 5`,
        `cr_object_warning_events_total{${L},reason="other"} 1`,
      ],
      {
        warnings: [
          ["BackOff", 2],
          ["other", 1],
          ["BackOff", 3],
          ["BackOff", 0],
        ],
      },
    ],
    [
      "one occurrence of one reason",
      [{ status: ready("False") }],
      [`cr_object_warning_events_total{${L},reason="Failed"} 1`],
      { warnings: [["Failed", 1]] },
    ],
  ],
};

for (const family of objectFamilies) {
  describe(`cr_${family.suffix}`, () => {
    for (const [name, history, expected, options] of tables[family.key]) {
      test(name, () => {
        const text = rendered(family.key, history, options);
        assert.deepEqual(text === "" ? [] : text.trimEnd().split("\n"), expected);
      });
    }
  });
}

test("every family's cost formula counts what it renders", () => {
  for (const family of objectFamilies) {
    for (const [name, history, , options] of tables[family.key]) {
      const entry = entryAfter("all", history, { heartbeat: true, ...options });
      const text = slotLines(entry.series, family.slot);
      const lines = text === "" ? 0 : text.trimEnd().split("\n").length;
      assert.equal(family.cost.series(shapeOf(entry)), lines, `cr_${family.suffix}: ${name}`);
    }
  }
});

test("a Ready flip changes the inputs of four families only", () => {
  const kind = kindFor(-1, {});
  const learning = newKindLearning({ phaseEnum: [], maxReasons: 20 });
  const first = applyChange(undefined, widget({ status: ready("False") }), kind, learning, NOW).entry;
  const next = applyChange(
    first,
    widget({ resourceVersion: "2", status: ready("True") }),
    kind,
    learning,
    NOW,
  ).entry;
  const changed = changedInputs(first, next);
  const affected = objectFamilies.filter((f) => f.inputMask & changed).map((f) => f.key);
  assert.deepEqual(affected, ["condition", "status", "statusUpdates", "conditionTransitions"]);
});

test("families whose inputs did not change keep their text (they are not re-rendered)", () => {
  const kind = kindFor(-1, {});
  const learning = newKindLearning({ phaseEnum: [], maxReasons: 20 });
  const before = applyChange(
    undefined,
    widget({ generation: 1, status: ready("False") }),
    kind,
    learning,
    NOW,
  ).entry;
  const render = kind.render as NonNullable<KindSettings["render"]>;
  // Told that only the conditions' status changed, while generation changed too:
  // the generation family keeps its old text, the condition family is new.
  const after = renderSeries(render, before.series, inputBit.conditionStatus, {
    state: {
      ...before.state,
      generation: 7,
      conditions: [{ ...(before.state.conditions[0] as ConditionState), status: "True" }],
    },
    counters: before.counters,
    lag: before.lag,
    requestedAt: before.memory.requestedAt,
    summary: before.summary,
    labels: before.labels,
  });
  assert.equal(slotLines(after, slotOf.generation), slotLines(before.series, slotOf.generation));
  assert.match(slotLines(after, slotOf.condition), /status="True"\} 1/);
  assert.equal(after.count, before.series?.count);
});

test("a condition without lastTransitionTime keeps the time it was first seen in its status, until it changes", () => {
  const kind = kindFor(1 << slotOf.conditionLastTransition, {});
  const learning = newKindLearning({ phaseEnum: [], maxReasons: 20 });
  const at = (status: string, resourceVersion: string, now: number, previous?: ObjectEntry, start = false) =>
    applyChange(
      previous,
      widget({ resourceVersion, status: { conditions: [{ type: "Ready", status }] } }),
      kind,
      learning,
      now,
      start,
    ).entry;
  const listed = at("False", "1", NOW, undefined, true);
  assert.deepEqual(
    listed.state.conditions.map((c) => [c.since, c.sinceSource]),
    [[NOW, "exporter_start"]],
    "already in its status when the exporter started: since exporter start",
  );
  const same = at("False", "2", NOW + 60, listed);
  assert.equal(same.state.conditions[0]?.since, NOW, "the status held: the first sight stays");
  assert.equal(same.state.conditions[0]?.sinceSource, "exporter_start");
  const changed = at("True", "3", NOW + 120, same);
  assert.deepEqual(
    changed.state.conditions.map((c) => [c.since, c.sinceSource]),
    [[NOW + 120, "first_seen"]],
  );
  assert.equal(
    fromByteString(slotLines(changed.series, slotOf.conditionLastTransition)),
    `cr_condition_last_transition_timestamp_seconds{${L},type="Ready"} ${NOW + 120}\n`,
  );
  const watched = at("False", "1", NOW, undefined, false);
  assert.equal(watched.state.conditions[0]?.sinceSource, "first_seen", "created while watched: first seen");
});
