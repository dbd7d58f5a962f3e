// valueCandidates: the CRD schema's numeric and date-time status fields that
// `values` does not read, proposed (the default) or exported as cr_value:
// the option read at an entry and in `kinds`, a wrong value named; the split
// into exported and proposed, the names and the collision rule, the room
// beside configured values; the plan reading them as values; explain's table.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { type ExplainedResource, formatExplanation } from "../../src/cli/explain.ts";
import { planFromCrds } from "../../src/collectors/selection.ts";
import { valueCandidates } from "../../src/collectors/value-candidates.ts";
import { validateConfig } from "../../src/config/validate.ts";
import { type CelValue, maxValues, type ValueOption } from "../../src/config/validate-values.ts";
import { type CrdSummary, summarizeCrd } from "../../src/core/detect/crd.ts";
import type { ValueField } from "../../src/core/detect/schema.ts";
import { projectObject } from "../../src/core/project/project.ts";
import { problems } from "../support/config-problems.ts";

const field = (path: string, type: ValueField["type"] = "number"): ValueField => ({
  path: path.split("."),
  type,
});
const value = (path: string, name = path.split(".").at(-1) as string): ValueOption => ({
  name,
  path,
  type: "auto",
});
const named = (fields: readonly ValueField[], values: readonly ValueOption[] = []) =>
  valueCandidates(fields, values, "export").exported.map((c) => `${c.name}=${c.path}:${c.type}`);

test("valueCandidates: propose unless given; export at an entry or for one kind; anything else names the key and the value", () => {
  const read = (resources: unknown[]) => validateConfig({ resources }).resources;
  assert.equal(read([{ groups: ["*"] }])[0]?.options.valueCandidates, "propose");
  assert.equal(read([{ groups: ["*"], valueCandidates: "export" }])[0]?.options.valueCandidates, "export");
  const [entry] = read([{ groups: ["*"], kinds: [{ kind: "Widget", valueCandidates: "export" }] }]);
  assert.equal(entry?.options.valueCandidates, "propose", "the entry's own stays the default");
  assert.equal(entry?.overrides[0]?.options.valueCandidates, "export");
  assert.deepEqual(problems({ resources: [{ groups: ["*"], valueCandidates: "exprt" }] }), [
    'resources[0].valueCandidates: expected one of propose, export, got "exprt"',
  ]);
  assert.deepEqual(
    problems({ resources: [{ groups: ["*"], kinds: [{ kind: "Widget", valueCandidates: true }] }] }),
    ["resources[0].kinds[0].valueCandidates: expected one of propose, export, got true"],
  );
});

test("propose exports nothing and proposes every field in schema order; export exports them all as their schema types", () => {
  const fields = [
    field("status.readyReplicas"),
    field("status.expiresAt", "timestamp"),
    field("status.ratio"),
  ];
  const proposed = valueCandidates(fields, [], "propose");
  assert.deepEqual(proposed.exported, []);
  assert.deepEqual(proposed.proposed, [
    { path: "status.readyReplicas", type: "number" },
    { path: "status.expiresAt", type: "timestamp" },
    { path: "status.ratio", type: "number" },
  ]);
  const exported = valueCandidates(fields, [], "export");
  assert.deepEqual(exported.proposed, []);
  assert.deepEqual(exported.exported, [
    {
      path: "status.readyReplicas",
      type: "number",
      name: "readyReplicas",
      segments: ["status", "readyReplicas"],
    },
    { path: "status.expiresAt", type: "timestamp", name: "expiresAt", segments: ["status", "expiresAt"] },
    { path: "status.ratio", type: "number", name: "ratio", segments: ["status", "ratio"] },
  ]);
});

test("a configured value at the same path wins: the field is no candidate, its name and type stay the configuration's", () => {
  const fields = [field("status.replicas"), field("status.expiresAt", "timestamp")];
  const configured = [value("status.replicas", "desired")];
  assert.deepEqual(named(fields, configured), ["expiresAt=status.expiresAt:timestamp"]);
  assert.deepEqual(valueCandidates(fields, configured, "propose").proposed, [
    { path: "status.expiresAt", type: "timestamp" },
  ]);
});

test("names: the last segment; the whole path where a configured value or another candidate has that name", () => {
  const fields = [
    field("status.primary.ready"),
    field("status.replica.ready"),
    field("status.size"),
    field("status.total"),
  ];
  assert.deepEqual(named(fields, [value("spec.size")]), [
    "status.primary.ready=status.primary.ready:number",
    "status.replica.ready=status.replica.ready:number",
    "status.size=status.size:number",
    "total=status.total:number",
  ]);
  // A computed value's name is taken as well.
  const computed: CelValue = { name: "total", cel: {} as CelValue["cel"] };
  assert.deepEqual(named([field("status.total")], [computed]), ["status.total=status.total:number"]);
});

test("a schema property holding a dot that spells another candidate's whole path stays proposed: no two values share a name", () => {
  const fields = [
    { path: ["status", "a", "ready"], type: "number" as const },
    { path: ["status", "b", "ready"], type: "number" as const },
    { path: ["status.a", "ready"], type: "number" as const },
  ];
  const split = valueCandidates(fields, [], "export");
  assert.deepEqual(
    split.exported.map((c) => c.name),
    ["status.a.ready", "status.b.ready"],
  );
  assert.deepEqual(split.proposed, [{ path: "status.a.ready", type: "number" }]);
});

test(`export fills the room beside values up to ${maxValues} per object, in schema order; the rest stay proposed`, () => {
  const configured = Array.from({ length: maxValues - 2 }, (_, i) => value(`spec.v${i}`));
  const fields = ["a", "b", "c", "d"].map((n) => field(`status.${n}`));
  const split = valueCandidates(fields, configured, "export");
  assert.deepEqual(
    split.exported.map((c) => c.name),
    ["a", "b"],
  );
  assert.deepEqual(
    split.proposed.map((c) => c.path),
    ["status.c", "status.d"],
  );
  const full = Array.from({ length: maxValues }, (_, i) => value(`spec.v${i}`));
  assert.equal(valueCandidates(fields, full, "export").exported.length, 0);
});

test("whatever the schema and the configuration, exported names are distinct and none is a configured one", () => {
  const segment = fc.constantFrom("a", "b", "ready", "a.b", "size");
  const fields = fc.array(
    fc.record({
      path: fc.array(segment, { minLength: 1, maxLength: 3 }).map((p) => ["status", ...p]),
      type: fc.constantFrom("number" as const, "timestamp" as const),
    }),
    { maxLength: 20 },
  );
  const names = fc.uniqueArray(fc.constantFrom("a", "b", "ready", "size", "other"), { maxLength: 5 });
  fc.assert(
    fc.property(fields, names, (schema, configuredNames) => {
      // The schema declares each path once.
      const unique = schema.filter(
        (f, i) => schema.findIndex((g) => g.path.join("\u0000") === f.path.join("\u0000")) === i,
      );
      const configured = configuredNames.map((n, i) => value(`spec.x${i}`, n));
      const { exported, proposed } = valueCandidates(unique, configured, "export");
      const all = [...configured.map((v) => v.name), ...exported.map((c) => c.name)];
      assert.equal(new Set(all).size, all.length, JSON.stringify(all));
      assert.equal(exported.length + proposed.length, unique.length);
      assert.ok(all.length <= Math.max(maxValues, configured.length));
    }),
  );
});

/** An established CRD whose status declares an integer, a date-time, a string and observedGeneration. */
function candidatesCrd(): CrdSummary {
  const summary = summarizeCrd({
    metadata: { name: "widgets.example.com" },
    spec: {
      group: "example.com",
      scope: "Namespaced",
      names: { plural: "widgets", kind: "Widget" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                status: {
                  type: "object",
                  properties: {
                    observedGeneration: { type: "integer" },
                    readyReplicas: { type: "integer" },
                    expiresAt: { type: "string", format: "date-time" },
                    message: { type: "string" },
                  },
                },
              },
            },
          },
        },
      ],
    },
    status: { conditions: [{ type: "Established", status: "True" }] },
  });
  assert.ok(summary);
  return summary;
}

const widget = {
  metadata: { name: "w1", namespace: "ns1", uid: "uid-w1", resourceVersion: "1", generation: 1 },
  status: { observedGeneration: 1, readyReplicas: 3, expiresAt: "2026-06-01T12:00:00Z", message: "ok" },
};

test("an exported plan reads the candidates as values after the configured ones and proposes none; a proposing one reads none", () => {
  const plan = (entry: Record<string, unknown>) =>
    planFromCrds(validateConfig({ resources: [{ groups: ["example.com"], ...entry }] }).resources, [
      candidatesCrd(),
    ])[0];
  const exporting = plan({ valueCandidates: "export" });
  assert.deepEqual(exporting?.valueCandidates, []);
  assert.deepEqual(
    exporting?.exportedCandidates.map((c) => `${c.name}=${c.path}:${c.type}`),
    ["readyReplicas=status.readyReplicas:number", "expiresAt=status.expiresAt:timestamp"],
  );
  assert.deepEqual(projectObject(widget, exporting?.projection ?? assert.fail()).values, [
    { name: "readyReplicas", value: 3 },
    { name: "expiresAt", value: Date.parse("2026-06-01T12:00:00Z") / 1000 },
  ]);

  const proposing = plan({});
  assert.deepEqual(proposing?.exportedCandidates, []);
  assert.deepEqual(
    proposing?.valueCandidates.map((c) => c.path),
    ["status.readyReplicas", "status.expiresAt"],
  );
  assert.deepEqual(projectObject(widget, proposing?.projection ?? assert.fail()).values, []);
  assert.notEqual(
    exporting?.fingerprint,
    proposing?.fingerprint,
    "another projection: the collector restarts",
  );

  const mixed = plan({
    valueCandidates: "export",
    values: [{ path: "status.readyReplicas", name: "ready" }, { path: "spec.expiresAt" }],
  });
  assert.deepEqual(projectObject(widget, mixed?.projection ?? assert.fail()).values, [
    { name: "ready", value: 3 },
    { name: "status.expiresAt", value: Date.parse("2026-06-01T12:00:00Z") / 1000 },
  ]);

  const perKind = plan({ kinds: [{ kind: "Widget", valueCandidates: "export" }] });
  assert.equal(perKind?.exportedCandidates.length, 2, "a kinds override exports for its kind");
});

test("explain lists the exported candidates with their field and the proposed ones apart, each at one series per object", () => {
  const resource = (
    name: string,
    objects: number,
    candidates: Pick<ExplainedResource, "valueCandidates" | "exportedCandidates">,
  ): ExplainedResource => ({
    resource: name,
    kind: "Widget",
    version: "v1",
    scope: "Namespaced",
    statusSubresource: true,
    mode: "objects",
    readyCondition: "Ready",
    readinessSource: "schema",
    conditions: { path: "status.conditions", from: "schema" },
    observedGeneration: { path: "status.observedGeneration", from: "schema" },
    phase: { path: null, from: "none (no phase in the schema)", phases: [] },
    objects,
    seriesPerObject: 10,
    estimatedSeries: 10 * objects,
    detected: null,
    cel: [],
    ...candidates,
  });
  const text = formatExplanation({
    resources: [
      resource("widgets.example.com", 3, {
        valueCandidates: [{ path: "status.extra", type: "number" }],
        exportedCandidates: [
          { path: "status.readyReplicas", type: "number", field: "readyReplicas" },
          { path: "status.expiresAt", type: "timestamp", field: "expiresAt" },
        ],
      }),
      resource("gadgets.example.com", 5, {
        valueCandidates: [{ path: "status.size", type: "number" }],
        exportedCandidates: [],
      }),
    ],
    totalSeries: 80,
    notSelected: [],
    missing: [],
  });
  const from = (heading: string) => text.slice(text.indexOf(heading)).split("\n").slice(0, 3).join("\n");
  assert.equal(
    from("Schema fields exported by valueCandidates: export"),
    [
      "Schema fields exported by valueCandidates: export (cr_value{field}, one series per object each, in the estimate above):",
      "  widgets.example.com: readyReplicas = status.readyReplicas, expiresAt = status.expiresAt (timestamp) (+3 series each)",
      "",
    ].join("\n"),
  );
  assert.equal(
    from("Numeric fields that values: could export"),
    [
      "Numeric fields that values: could export (cr_value{field}, one series per object each; or valueCandidates: export):",
      "  widgets.example.com: status.extra (+3 series each)",
      "  gadgets.example.com: status.size (+5 series each)",
    ].join("\n"),
  );
  const none = formatExplanation({
    resources: [resource("gadgets.example.com", 5, { valueCandidates: [], exportedCandidates: [] })],
    totalSeries: 50,
    notSelected: [],
    missing: [],
  });
  assert.doesNotMatch(none, /valueCandidates|could export/);
});
