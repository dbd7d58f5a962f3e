// Hostile objects on a real apiserver, of a kind whose status has no schema
// (anything goes): one object cycling through 40 phases of 50 KB, 50 objects
// with made-up phases, 300 conditions, a 1 MB message, control characters.
// The whole scrape passes `promtool check metrics`, every label value stays
// within the cap, every object keeps its own few series, and once the hostile
// objects are gone nothing of theirs is held. Figures are printed as `# …`.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parse } from "yaml";
import {
  type CrdManifest,
  createCr,
  deleteCr,
  installCrd,
  patchStatus,
  type ResourceRef,
  registerKind,
  useControlPlane,
} from "../cluster/index.ts";
import { type ExporterHandle, eventually, runExporter } from "../support/exporter.ts";
import { promtoolCheckMetrics } from "../support/promtool.ts";

const testbed = useControlPlane();
const crd = parse(
  readFileSync(
    join(import.meta.dirname, "..", "fixtures", "crds-shapes", "blobs.shapes.example.com.yaml"),
    "utf8",
  ),
) as CrdManifest;
/** The label value cap (src/core/label-values.ts) and the per-object condition cap (src/core/project/project.ts). */
const maxLabelValue = 128;
const maxConditions = 32;
let exporter: ExporterHandle;
let ns = "";

before(async () => {
  const plane = await testbed.ready();
  await installCrd(plane.admin.rest, crd);
  registerKind(crd);
  ns = await plane.createNamespace("hostile-objects");
  exporter = await runExporter(plane.kubeconfigPath, {
    resources: [{ group: "shapes.example.com", resource: "blobs" }],
  });
});

after(async () => {
  await exporter?.stop();
});

const ref = (name: string): ResourceRef => ({
  group: "shapes.example.com",
  version: "v1",
  plural: "blobs",
  namespace: ns,
  name,
});

async function blob(name: string, status: Record<string, unknown>): Promise<void> {
  const rest = testbed.plane.admin.rest;
  await createCr(rest, ref(name), name, { size: 1 });
  await patchStatus(rest, ref(name), status);
}

const condition = (type: string, status: string, reason: string, message = "") => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: "2026-01-01T00:00:00Z",
});

interface Series {
  family: string;
  labels: Map<string, string>;
}

/** The per-object series of the blobs in `ns`, parsed from the exposition text (label values unescaped). */
function blobSeries(text: string): Series[] {
  const out: Series[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith("cr_") || line.startsWith("cr_exporter_") || !line.includes(`namespace="${ns}"`))
      continue;
    const family = line.slice(0, line.indexOf("{"));
    const labels = new Map<string, string>();
    for (const m of line.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels.set(
        m[1] as string,
        (m[2] as string).replace(/\\n/g, "\n").replace(/\\"/g, '"').replace(/\\\\/g, "\\"),
      );
    }
    out.push({ family, labels });
  }
  return out;
}

const phaseOf = (series: Series[], name: string) =>
  series
    .filter((s) => s.family === "cr_phase" && s.labels.get("name") === name)
    .map((s) => s.labels.get("phase"));

test("hostile objects: promtool clean, every label value within the cap, series bounded per object", async () => {
  const rest = testbed.plane.admin.rest;
  for (let i = 0; i < 10; i++)
    await blob(`ok-${i}`, { phase: "Running", conditions: [condition("Ready", "True", "Done")] });
  const baseline = await eventually(
    "the ten ordinary blobs",
    async () => {
      const m = await exporter.scrape();
      return blobSeries(m.text).filter((s) => s.family === "cr_phase").length === 10 ? m : undefined;
    },
    30_000,
  );
  const perOrdinary = blobSeries(baseline.text).length / 10;

  // One object cycling through 40 phases of 50 KB each.
  await blob("shapeshifter", { phase: "Start" });
  for (let i = 0; i < 40; i++)
    await patchStatus(rest, ref("shapeshifter"), { phase: `${i}${"x".repeat(50_000)}` });
  // Fifty objects with made-up phases.
  for (let i = 0; i < 50; i++) await blob(`made-up-${i}`, { phase: `MadeUp${i}` });
  // 300 conditions on one object.
  await blob("many-conditions", {
    conditions: Array.from({ length: 300 }, (_, i) =>
      condition(`Type${i}`, i % 2 ? "True" : "False", `Reason${i}`),
    ),
  });
  // A 1 MB message (etcd takes up to 1.5 MB per object).
  await blob("big-message", { conditions: [condition("Ready", "False", "Huge", "m".repeat(1 << 20))] });
  // Control characters, quotes, backslashes, escape sequences and a lone surrogate.
  const nasty = 'a\u0000b\u0007c\td\re\nf"g\\h\u001b[31m\u2028\ud800end';
  await blob("control-characters", { phase: nasty, conditions: [condition(nasty, "True", nasty, nasty)] });

  const hostile = await eventually(
    "every hostile object exported",
    async () => {
      const m = await exporter.scrape();
      const s = blobSeries(m.text);
      // An object is seen once its status patch is: its create alone already
      // shows it without a phase or conditions.
      const conditionsOf = (name: string) =>
        s.filter((x) => x.family === "cr_condition" && x.labels.get("name") === name).length;
      return phaseOf(s, "shapeshifter")[0]?.startsWith("39x") &&
        phaseOf(s, "made-up-49").length === 1 &&
        conditionsOf("many-conditions") === maxConditions &&
        conditionsOf("big-message") > 0 &&
        phaseOf(s, "control-characters").length === 1 &&
        conditionsOf("control-characters") > 0
        ? m
        : undefined;
    },
    60_000,
  );
  promtoolCheckMetrics(hostile.text);
  const series = blobSeries(hostile.text);
  const objects = new Set(series.map((s) => s.labels.get("name")));
  const longest = Math.max(...series.flatMap((s) => [...s.labels.values()].map((v) => v.length)));
  const phases = new Set(series.filter((s) => s.family === "cr_phase").map((s) => s.labels.get("phase")));
  const conditionsOf = (name: string) =>
    series.filter((s) => s.family === "cr_condition" && s.labels.get("name") === name).length;
  const counters = hostile.samples;
  const resource = 'group="shapes.example.com",version="v1",kind="Blob"';
  const truncated = counters.get(`cr_exporter_label_values_truncated_total{${resource}}`) ?? 0;
  const dropped = counters.get(`cr_exporter_conditions_dropped_total{${resource}}`) ?? 0;
  console.error(
    `# hostile objects: ${series.length} per-object series for ${objects.size} objects (an ordinary blob has ${perOrdinary}); ` +
      `longest label value ${longest} characters; ${phases.size} distinct phases; ` +
      `many-conditions exports ${conditionsOf("many-conditions")} of 300 conditions; scrape ${hostile.text.length} bytes; ` +
      `counted: ${truncated} label values cut, ${dropped} conditions dropped`,
  );
  assert.ok(longest <= maxLabelValue, `a label value of ${longest} characters`);
  assert.equal(
    series.filter((s) => s.family === "cr_phase").length,
    objects.size - 2,
    "one phase series per object with a phase",
  );
  assert.ok(phases.size <= 21, `${phases.size} phases: at most 20 learned, plus "other"`);
  assert.ok(phases.has("other"), "made-up phases past the 20 are folded");
  assert.equal(conditionsOf("many-conditions"), maxConditions);
  assert.ok(series.length <= objects.size * perOrdinary + 3 * maxConditions, `${series.length} series`);
  assert.ok(hostile.text.length < 1024 * 1024, `${hostile.text.length} bytes per scrape`);
  assert.ok(truncated >= 40, `${truncated} values cut`);
  assert.ok(dropped >= 300 - maxConditions, `${dropped} conditions dropped`);
  assert.equal(phaseOf(series, "ok-0")[0], "Running", "the ordinary objects keep their phase");

  // Once the hostile objects are gone, nothing of theirs is held: a new phase is learned, not folded.
  await deleteCr(rest, ref("shapeshifter"));
  for (let i = 0; i < 50; i++) await deleteCr(rest, ref(`made-up-${i}`));
  await blob("newcomer", { phase: "Brandnew" });
  const cleaned = await eventually(
    "the newcomer's own phase",
    async () => {
      const m = await exporter.scrape();
      return phaseOf(blobSeries(m.text), "newcomer")[0] === "Brandnew" ? m : undefined;
    },
    30_000,
  );
  const left = blobSeries(cleaned.text);
  console.error(
    `# after deleting the 51 phase-cycling objects: ${left.length} per-object series for ${new Set(left.map((s) => s.labels.get("name"))).size} objects; the newcomer's phase is "Brandnew"`,
  );
  assert.ok(!left.some((s) => s.labels.get("name")?.startsWith("made-up")));
  promtoolCheckMetrics(cleaned.text);
});
