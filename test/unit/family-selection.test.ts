// Family selection from `metrics` rules (kube-state-metrics' semantics): from
// the default set, each level's `allow` states the families exactly, `optIn`
// adds and `deny` removes; levels apply in order (global, then the entry's).
// Every group of families (per object, aggregate, per kind) is selectable.
import assert from "node:assert/strict";
import { test } from "node:test";
import { aggregateFamilies, objectFamilies, perKindFamilies } from "../../src/core/series/catalog.ts";
import {
  defaultSelection,
  type FamilyRules,
  type FamilySelection,
  noFamilyRules,
  sameSelection,
  selectableFamilies,
  selectFamilies,
  unmatchedPatterns,
} from "../../src/core/series/family-selection.ts";

/** The full names a selection holds, per group. */
function names(selection: FamilySelection, prefix = "cr_"): Record<keyof FamilySelection, string[]> {
  return {
    objects: objectFamilies.filter((f) => selection.objects & (1 << f.slot)).map((f) => prefix + f.suffix),
    aggregates: aggregateFamilies
      .filter((f) => selection.aggregates & (1 << f.index))
      .map((f) => prefix + f.suffix),
    perKind: perKindFamilies.filter((f) => selection.perKind & (1 << f.index)).map((f) => prefix + f.suffix),
  };
}

const rules = (r: Partial<FamilyRules>): FamilyRules => ({ ...noFamilyRules, ...r });

test("every family of the catalog is selectable by its full name, in its group, with its bit", () => {
  const all = selectableFamilies("x_");
  assert.equal(all.length, objectFamilies.length + aggregateFamilies.length + perKindFamilies.length);
  for (const f of objectFamilies) {
    assert.deepEqual(
      all.find((s) => s.name === `x_${f.suffix}`),
      { name: `x_${f.suffix}`, group: "objects", bit: 1 << f.slot },
    );
  }
  for (const [group, families] of [
    ["aggregates", aggregateFamilies],
    ["perKind", perKindFamilies],
  ] as const) {
    for (const f of families) {
      assert.deepEqual(
        all.find((s) => s.name === `x_${f.suffix}`),
        { name: `x_${f.suffix}`, group, bit: 1 << f.index },
      );
    }
  }
});

test("without rules, the default set of every group", () => {
  assert.deepEqual(selectFamilies("cr_", []), defaultSelection);
  assert.deepEqual(selectFamilies("cr_", [noFamilyRules, noFamilyRules]), defaultSelection);
  const selected = names(selectFamilies("cr_", []));
  assert.deepEqual(
    selected.objects,
    objectFamilies.filter((f) => f.defaultSet).map((f) => `cr_${f.suffix}`),
  );
  assert.ok(!selected.objects.includes("cr_condition_transitions_total"), "opt-in families are out");
  assert.deepEqual(
    selected.aggregates,
    aggregateFamilies.filter((f) => f.defaultSet).map((f) => `cr_${f.suffix}`),
  );
  assert.deepEqual(
    selected.perKind,
    perKindFamilies.filter((f) => f.defaultSet).map((f) => `cr_${f.suffix}`),
  );
});

test("allow states exactly the families exported, in every group, opt-in ones included", () => {
  const selected = selectFamilies("cr_", [
    rules({
      allow: [
        "cr_condition_transitions_total",
        "cr_metadata_generation",
        "cr_aggregate_objects",
        "cr_time_to_ready*",
      ],
    }),
  ]);
  assert.deepEqual(names(selected), {
    objects: ["cr_metadata_generation", "cr_condition_transitions_total"],
    aggregates: ["cr_aggregate_objects"],
    perKind: ["cr_time_to_ready_seconds"],
  });
  assert.deepEqual(names(selectFamilies("cr_", [rules({ allow: [] })])), {
    objects: [],
    aggregates: [],
    perKind: [],
  });
});

test("optIn adds and deny removes, in every group, and deny wins over optIn at one level", () => {
  const selected = names(
    selectFamilies("cr_", [
      rules({
        optIn: ["cr_condition_transitions_total", "cr_condition_stale"],
        deny: [
          "cr_condition_stale",
          "cr_phase",
          "cr_aggregate_phase_objects",
          "cr_reconcile_duration_seconds",
        ],
      }),
    ]),
  );
  const defaults = names(defaultSelection);
  assert.deepEqual(
    selected.objects,
    [...defaults.objects.filter((n) => n !== "cr_phase"), "cr_condition_transitions_total"].sort(
      (a, b) => objectSlot(a) - objectSlot(b),
    ),
  );
  assert.deepEqual(
    selected.aggregates,
    defaults.aggregates.filter((n) => n !== "cr_aggregate_phase_objects"),
  );
  assert.deepEqual(
    selected.perKind,
    defaults.perKind.filter((n) => n !== "cr_reconcile_duration_seconds"),
  );
});

const objectSlot = (name: string): number => objectFamilies.findIndex((f) => `cr_${f.suffix}` === name);

test("levels apply in order: the entry refines the global choice, or states its own with allow", () => {
  const globalDeny = rules({ deny: ["cr_condition*"] });
  const entryOptIn = rules({ optIn: ["cr_condition_reason"] });
  const refined = names(selectFamilies("cr_", [globalDeny, entryOptIn])).objects;
  assert.ok(refined.includes("cr_condition_reason"), "the entry adds back one the global rules removed");
  assert.ok(!refined.includes("cr_condition"), "the rest stays removed");
  assert.ok(refined.includes("cr_metadata_generation"), "the default set stays");

  const own = names(selectFamilies("cr_", [globalDeny, rules({ allow: ["cr_condition"] })]));
  assert.deepEqual(own, { objects: ["cr_condition"], aggregates: [], perKind: [] }, "allow replaces");

  const thenDeny = names(
    selectFamilies("cr_", [rules({ allow: ["cr_phase", "cr_status"] }), rules({ deny: ["cr_phase"] })]),
  );
  assert.deepEqual(thenDeny.objects, ["cr_status"], "a later deny removes from an allow list");
});

test("patterns are matched against the names with the configured prefix", () => {
  assert.deepEqual(names(selectFamilies("x_", [rules({ allow: ["x_phase", "cr_status"] })]), "x_").objects, [
    "x_phase",
  ]);
});

test("patterns that match no family are reported (a typo must not pass silently)", () => {
  assert.deepEqual(
    unmatchedPatterns("cr_", [
      "cr_condition*",
      "cr_condtion",
      "cr_aggregate_objects",
      "cr_time_to_ready_seconds",
      "x_*",
    ]),
    ["cr_condtion", "x_*"],
  );
  assert.deepEqual(unmatchedPatterns("cr_", []), []);
});

test("two selections are the same only when every group is", () => {
  const a: FamilySelection = { objects: 1, aggregates: 2, perKind: 4 };
  assert.ok(sameSelection(a, { ...a }));
  assert.equal(sameSelection(a, { ...a, objects: 3 }), false);
  assert.equal(sameSelection(a, { ...a, aggregates: 3 }), false);
  assert.equal(sameSelection(a, { ...a, perKind: 5 }), false);
});

test("optIn and deny next to allow have no effect (which is why the configuration refuses them there)", () => {
  const selected = selectFamilies("cr_", [
    rules({ allow: ["cr_phase", "cr_status"], optIn: ["cr_condition_stale"], deny: ["cr_phase"] }),
  ]);
  assert.deepEqual(names(selected), { objects: ["cr_phase", "cr_status"], aggregates: [], perKind: [] });
});

test("a later level's optIn adds back aggregate and per-kind families an earlier allow left out", () => {
  const selected = selectFamilies("cr_", [
    rules({ allow: ["cr_status"] }),
    rules({ optIn: ["cr_aggregate_objects", "cr_time_to_ready_seconds"] }),
  ]);
  assert.deepEqual(names(selected), {
    objects: ["cr_status"],
    aggregates: ["cr_aggregate_objects"],
    perKind: ["cr_time_to_ready_seconds"],
  });
});
