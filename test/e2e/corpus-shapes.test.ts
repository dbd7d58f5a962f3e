// Zero-config on every status shape of the compatibility corpus, on the
// testbed: healthy, progressing and failed objects of each shape (nested
// conditions, no lastTransitionTime, Succeeded-only, Available-only,
// phase-only with and without the status subresource, an open status,
// observedGeneration only on conditions or nested, Argo CD-like state
// strings) give the right cr_condition, cr_phase and cr_status, and nothing
// invented; cr_exporter_resource_info says what was decided per kind; a
// condition without lastTransitionTime turns Failed once failedAfter has
// passed since the exporter first saw it.
import assert from "node:assert/strict";
import { after, afterEach, before, test } from "node:test";
import { resourceInfoLabels } from "../../src/core/series/catalog.ts";
import { type CrdManifest, crPath, installCrd, useControlPlane } from "../cluster/index.ts";
import { placeDraft, refOf } from "../realcrds/testbed.ts";
import { corpusDrafts } from "../support/corpus-drafts.ts";
import { type ExporterHandle, eventually, runExporter, series } from "../support/exporter.ts";
import { type CorpusName, corpusGroup, corpusNames, loadCorpusCrd } from "../support/shapes-corpus.ts";

const testbed = useControlPlane();
let exporter: ExporterHandle;
let ns: string;
let startedAt = 0;
const crds = new Map<CorpusName, CrdManifest>();
const kinds = new Map<CorpusName, string>();

/** How long a beacon (conditions without lastTransitionTime) may be Ready=False before it is Failed. */
const beaconFailedAfterSeconds = 4;

before(async () => {
  const { rest } = (await testbed.ready()).admin;
  ns = await testbed.plane.createNamespace("shapes");
  const clock = { now: new Date() };
  for (const name of corpusNames) {
    const crd = await installCrd(rest, loadCorpusCrd(name));
    crds.set(name, crd);
    kinds.set(name, crd.spec.names.kind);
    // Every object exists before the exporter starts: detection learns from its first list.
    for (const draft of corpusDrafts[name](clock)) {
      await placeDraft(rest, crd, ns, `${name}-${draft.scenario}`, draft);
    }
  }
  startedAt = Math.floor(Date.now() / 1000);
  exporter = await runExporter(testbed.plane.kubeconfigPath, {
    resources: [
      { group: corpusGroup, resource: "beacons", failedAfter: `${beaconFailedAfterSeconds}s` },
      { group: corpusGroup, resource: "deliveries", failedAfter: `${beaconFailedAfterSeconds}s` },
      // The version without a type enum: the readiness condition is learned from the objects.
      { group: corpusGroup, resource: "runs", version: "v1alpha1" },
      { groups: [corpusGroup] },
    ],
  });
  await eventually("exporter ready", async () => (await fetch(`${exporter.exporter.url}/readyz`)).ok, 30_000);
});

afterEach((t) => {
  if ("passed" in t && !t.passed && exporter)
    console.error(`# exporter log tail:\n${exporter.logs.slice(-60).join("\n")}`);
});

after(async () => {
  await exporter?.stop();
});

type Scenario = "healthy" | "progressing" | "failed" | "suspended";

interface Expected {
  /** `type=status` of every cr_condition series of the object (none: []). */
  conditions: string[];
  /** The cr_phase value, or undefined for no series. */
  phase: string | undefined;
  status: string;
}

const c = (...pairs: string[]) => pairs;

/** Per corpus kind and scenario: what the exporter must say with zero config. */
const expected: Record<CorpusName, Partial<Record<Scenario, Expected>>> = {
  rollouts: {
    healthy: { conditions: c("Ready=True"), phase: undefined, status: "Current" },
    progressing: { conditions: c("Ready=Unknown"), phase: undefined, status: "InProgress" },
    failed: { conditions: c("Ready=False"), phase: undefined, status: "Failed" },
  },
  beacons: {
    healthy: { conditions: c("Ready=True"), phase: undefined, status: "Current" },
    progressing: { conditions: c("Ready=Unknown"), phase: undefined, status: "InProgress" },
    // Ready=False without a time: Failed once failedAfter has passed since the exporter first saw it.
    failed: { conditions: c("Ready=False"), phase: undefined, status: "Failed" },
  },
  runs: {
    healthy: { conditions: c("Succeeded=True"), phase: undefined, status: "Current" },
    progressing: { conditions: c("Succeeded=Unknown"), phase: undefined, status: "InProgress" },
    failed: { conditions: c("Succeeded=False"), phase: undefined, status: "Failed" },
  },
  pools: {
    healthy: { conditions: c("Available=True"), phase: undefined, status: "Current" },
    progressing: {
      conditions: c("Available=False", "Progressing=True"),
      phase: undefined,
      status: "InProgress",
    },
    failed: { conditions: c("Available=False", "ReplicaFailure=True"), phase: undefined, status: "Failed" },
  },
  exports: {
    healthy: { conditions: [], phase: "Completed", status: "Current" },
    progressing: { conditions: [], phase: "InProgress", status: "InProgress" },
    failed: { conditions: [], phase: "PartiallyFailed", status: "Failed" },
  },
  chores: {
    healthy: { conditions: [], phase: "Succeeded", status: "Current" },
    progressing: { conditions: [], phase: "Running", status: "InProgress" },
    failed: { conditions: [], phase: "Failed", status: "Failed" },
  },
  blobs: {
    healthy: { conditions: c("Ready=True"), phase: "Active", status: "Current" },
    progressing: { conditions: c("Ready=Unknown"), phase: "Pending", status: "InProgress" },
    failed: { conditions: c("Ready=False"), phase: "Failed", status: "Failed" },
  },
  tickets: {
    healthy: { conditions: c("Ready=True"), phase: undefined, status: "Current" },
    progressing: { conditions: c("Ready=False"), phase: undefined, status: "InProgress" },
    failed: { conditions: c("Ready=False"), phase: undefined, status: "Failed" },
  },
  mirrors: {
    healthy: { conditions: c("Ready=True"), phase: undefined, status: "Current" },
    progressing: { conditions: c("Ready=Unknown"), phase: undefined, status: "InProgress" },
    failed: { conditions: c("Ready=False"), phase: undefined, status: "Failed" },
    suspended: { conditions: c("Ready=False"), phase: undefined, status: "Failed" },
  },
  // Health and sync strings are not conditions, and status.conditions entries without a status are not
  // either: nothing is invented. They are state fields: Healthy and Synced is Current, Degraded is Failed
  // once failedAfter has passed since the exporter first saw it (no time next to the field).
  deliveries: {
    healthy: { conditions: [], phase: undefined, status: "Current" },
    progressing: { conditions: [], phase: undefined, status: "InProgress" },
    failed: { conditions: [], phase: undefined, status: "Failed" },
  },
};

/** What the scrape says about one object. */
function observedOf(samples: Map<string, number>, name: CorpusName, scenario: string): Expected {
  const kind = kinds.get(name) as string;
  const namespace = crds.get(name)?.spec.scope === "Cluster" ? "" : ns;
  const object = `{group="${corpusGroup}",kind="${kind}",namespace="${namespace}",name="${name}-${scenario}",`;
  const values = (family: string, label: string) =>
    [...samples.keys()]
      .filter((key) => key.startsWith(`${family}${object}`))
      .map(
        (key) => new RegExp(`${label}="([^"]*)"`).exec(key.slice(family.length + object.length))?.[1] ?? "",
      );
  const conditions = [...samples.keys()]
    .filter((key) => key.startsWith(`cr_condition${object}`))
    .map((key) => /type="([^"]*)",status="([^"]*)"/.exec(key)?.slice(1, 3).join("=") ?? key)
    .sort();
  return {
    conditions,
    phase: values("cr_phase", "phase")[0],
    status: values("cr_status", "result").join(","),
  };
}

test("every corpus shape, healthy / progressing / failed: cr_condition, cr_phase and cr_status as expected", async () => {
  const wanted = corpusNames.flatMap((name) =>
    Object.entries(expected[name]).map(([scenario, want]) => ({ name, scenario, want: want as Expected })),
  );
  let mismatches: string[] = [];
  await eventually(
    "every object as expected",
    async () => {
      const { samples } = await exporter.scrape();
      mismatches = [];
      for (const { name, scenario, want } of wanted) {
        const got = observedOf(samples, name, scenario);
        const sorted = { ...want, conditions: [...want.conditions].sort() };
        if (JSON.stringify(got) !== JSON.stringify(sorted))
          mismatches.push(`${name} ${scenario}: got ${JSON.stringify(got)}, want ${JSON.stringify(sorted)}`);
      }
      if (process.env.DEBUG_E2E) console.error(`${new Date().toISOString()} ${mismatches.join(" / ")}`);
      return mismatches.length === 0;
    },
    30_000,
  ).catch((error) => {
    throw new Error(`${(error as Error).message}\n${mismatches.join("\n")}`);
  });
});

test("cr_exporter_resource_info says what zero-config decided per kind", async () => {
  // [kind, conditions_path, observed_generation_source, phase_path, ready_condition, readiness_source, run_to_completion, condition_times]
  const decided: [CorpusName, string, string, string, string, string, string, string][] = [
    [
      "rollouts",
      "status.rollout.conditions",
      "status",
      "",
      "Ready",
      "observed",
      "false",
      "lastTransitionTime",
    ],
    ["beacons", "status.conditions", "status", "", "Ready", "observed", "false", "first_seen"],
    ["runs", "status.conditions", "status", "", "Succeeded", "observed", "true", "lastTransitionTime"],
    ["pools", "status.conditions", "status", "", "Available", "schema", "false", "lastTransitionTime"],
    ["exports", "", "condition", "status.phase", "", "none", "true", ""],
    ["chores", "", "condition", "status.phase", "", "none", "true", ""],
    [
      "blobs",
      "status.conditions",
      "status",
      "status.phase",
      "Ready",
      "observed",
      "false",
      "lastTransitionTime",
    ],
    ["tickets", "status.conditions", "condition", "", "Ready", "observed", "false", "lastTransitionTime"],
    ["mirrors", "status.conditions", "status", "", "Ready", "observed", "false", "lastTransitionTime"],
    ["deliveries", "", "condition", "", "", "states", "false", ""],
  ];
  // The info labels that say what was decided (besides the identity, the subresource and the generation path).
  const decisionLabels = resourceInfoLabels.filter(
    (l) => !["group", "version", "kind", "status_subresource", "observed_generation_path"].includes(l),
  );
  let rows: string[] = [];
  await eventually(
    "the decisions",
    async () => {
      const { samples } = await exporter.scrape();
      const infos = [...samples.keys()].filter((k) => k.startsWith("cr_exporter_resource_info{"));
      rows = decided.flatMap(([name, ...labels]) => {
        const kind = kinds.get(name) as string;
        const info = infos.find((k) => k.includes(`group="${corpusGroup}"`) && k.includes(`kind="${kind}"`));
        const got = decisionLabels.map(
          (label) => new RegExp(`[{,]${label}="([^"]*)"`).exec(info ?? "")?.[1] ?? "?",
        );
        return JSON.stringify(got) === JSON.stringify(labels) ? [] : [`${name}: got ${got} want ${labels}`];
      });
      return rows.length === 0;
    },
    30_000,
  ).catch((error) => {
    throw new Error(`${(error as Error).message}\n${rows.join("\n")}`);
  });
  // The start-up log says it too, with the reasons.
  const watching = exporter.logs.filter(
    (line) => line.includes('"watching resource"') && line.includes(corpusGroup),
  );
  assert.ok(watching.length >= corpusNames.length, `${watching.length} start-up lines`);
  assert.ok(
    exporter.logs.some((l) => l.includes("status shape decision changed")),
    "a decision learned from objects is logged",
  );
});

test("conditions without lastTransitionTime: times from when the exporter first saw them, Failed after failedAfter", async () => {
  const { rest } = testbed.plane.admin;
  const kind = kinds.get("beacons") as string;
  const object = (name: string) => ({ group: corpusGroup, kind, namespace: ns, name });
  // Listed at start: the time is the exporter's first sight (since exporter start).
  const listed = await exporter.scrape();
  const since = listed.samples.get(
    series("cr_condition_last_transition_timestamp_seconds", { ...object("beacons-healthy"), type: "Ready" }),
  );
  assert.ok(
    since !== undefined && since >= startedAt - 1 && since <= Math.floor(Date.now() / 1000),
    `first sight ${since} vs exporter start ${startedAt}`,
  );

  // A beacon that fails while watched: InProgress at first, Failed once failedAfter has passed.
  const crd = crds.get("beacons") as CrdManifest;
  const ref = refOf(crd, ns, "beacons-progressing");
  const failedAt = Math.floor(Date.now() / 1000);
  await rest.patch(crPath(ref, "status"), {
    status: { conditions: [{ type: "Ready", status: "False", reason: "Unreachable", message: "" }] },
  });
  const seen = await eventually("the failing beacon's Ready=False", async () => {
    const s = await exporter.scrape();
    return s.samples.has(
      series("cr_condition", { ...object("beacons-progressing"), type: "Ready", status: "False" }),
    )
      ? { s, at: Date.now() / 1000 }
      : undefined;
  });
  const firstSeen =
    seen.s.samples.get(
      series("cr_condition_last_transition_timestamp_seconds", {
        ...object("beacons-progressing"),
        type: "Ready",
      }),
    ) ?? 0;
  assert.ok(
    firstSeen >= failedAt - 1 && firstSeen <= failedAt + beaconFailedAfterSeconds,
    `first seen ${firstSeen}`,
  );
  // Not Failed before failedAfter has passed since the first sight.
  const early = seen.s.samples.get(
    series("cr_status", { ...object("beacons-progressing"), result: "InProgress" }),
  );
  assert.ok(
    early === 1 || seen.at >= firstSeen + beaconFailedAfterSeconds,
    `Failed early (seen at ${seen.at})`,
  );
  await eventually(
    "the failing beacon Failed after failedAfter",
    async () =>
      (await exporter.scrape()).samples.get(
        series("cr_status", { ...object("beacons-progressing"), result: "Failed" }),
      ) === 1,
    30_000,
  );
  const failedSeenAt = Math.floor(Date.now() / 1000);
  assert.ok(
    failedSeenAt >= firstSeen + beaconFailedAfterSeconds,
    `Failed at ${failedSeenAt}, not before ${firstSeen} + ${beaconFailedAfterSeconds}`,
  );
  // A reason-only rewrite keeps the time: the status held.
  await rest.patch(crPath(ref, "status"), {
    status: { conditions: [{ type: "Ready", status: "False", reason: "StillUnreachable", message: "" }] },
  });
  await eventually("the new reason", async () =>
    (await exporter.scrape()).samples.has(
      series("cr_condition_reason", {
        ...object("beacons-progressing"),
        type: "Ready",
        reason: "StillUnreachable",
      }),
    ),
  );
  const after = await exporter.scrape();
  assert.equal(
    after.samples.get(
      series("cr_condition_last_transition_timestamp_seconds", {
        ...object("beacons-progressing"),
        type: "Ready",
      }),
    ),
    firstSeen,
  );
  assert.equal(
    after.samples.get(series("cr_status", { ...object("beacons-progressing"), result: "Failed" })),
    1,
  );
});
