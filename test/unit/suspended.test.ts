// Suspended objects: where a kind says it (spec.suspend or spec.paused from
// the schema, a configured path or annotation), the configuration's checks,
// and cr_suspended through the pipeline.
import assert from "node:assert/strict";
import { test } from "node:test";
import { shapeSettings } from "../../src/collectors/shape-settings.ts";
import { defaultResourceOptions } from "../../src/config/schema.ts";
import { projectObject } from "../../src/core/project/project.ts";
import { problems } from "../support/config-problems.ts";
import { widget } from "../support/objects.ts";
import { schemaShape } from "../support/state-fields.ts";

const shape = (suspendPath: string[] | undefined) => schemaShape({ suspendPath });

test("the detected switch is read; a configured path or annotation wins", () => {
  const detected = shapeSettings(defaultResourceOptions, shape(["spec", "paused"]), false, true).projection;
  assert.deepEqual(detected.suspendPath, ["spec", "paused"]);
  assert.equal(projectObject(widget({ spec: { paused: true } }), detected).suspended, true);
  assert.equal(projectObject(widget({ spec: { paused: false } }), detected).suspended, false);
  assert.equal(projectObject(widget({ spec: { suspend: true } }), detected).suspended, false);

  const configured = shapeSettings(
    { ...defaultResourceOptions, suspendPath: "spec.hold", suspendAnnotation: "cnpg.io/hibernation" },
    shape(["spec", "suspend"]),
    false,
    true,
  ).projection;
  assert.deepEqual(configured.suspendPath, ["spec", "hold"]);
  assert.equal(projectObject(widget({ spec: { suspend: true } }), configured).suspended, false);
  assert.equal(projectObject(widget({ spec: { hold: "true" } }), configured).suspended, true);
  const hibernated = widget({ annotations: { "cnpg.io/hibernation": "on" } });
  assert.equal(projectObject(hibernated, configured).suspended, true);
  const awake = widget({ annotations: { "cnpg.io/hibernation": "off" } });
  assert.equal(projectObject(awake, configured).suspended, false);
  // Cluster API's paused annotation pauses by its presence, whatever its value.
  const present = widget({ annotations: { "cnpg.io/hibernation": "" } });
  assert.equal(projectObject(present, configured).suspended, true);

  const none = shapeSettings(defaultResourceOptions, shape(undefined), false, true).projection;
  assert.equal(projectObject(widget({ spec: { suspend: true } }), none).suspended, false);
});

test("suspend options in the configuration: the field, the value and what was expected", () => {
  assert.deepEqual(
    problems({
      resources: [{ groups: ["*"], suspendPath: "spec..suspend", suspendAnnotation: "not a key" }],
    }),
    [
      'resources[0].suspendPath: expected a dotted field path such as spec.suspend, got "spec..suspend"',
      'resources[0].suspendAnnotation: expected an annotation key such as crossplane.io/paused, got "not a key"',
    ],
  );
  assert.deepEqual(
    problems({
      resources: [{ groups: ["*"], suspendPath: "spec.suspend", suspendAnnotation: "crossplane.io/paused" }],
    }),
    [],
  );
});

test("the Not-Ready rules leave suspended objects out unless includeSuspended is set", async () => {
  const { DEFAULT_ALERT_OPTIONS, generateRuleGroups, isAlertingRule } = await import(
    "../../alerts/src/index.ts"
  );
  const notReady = (includeSuspended: boolean) =>
    generateRuleGroups({ ...DEFAULT_ALERT_OPTIONS, includeSuspended })
      .flatMap((g) => g.rules)
      .filter((r) =>
        isAlertingRule(r) ? r.alert === "CustomResourceNotReady" : r.record.includes("count_readiness"),
      )
      .map((r) => r.expr);
  assert.equal(notReady(false).length, 2);
  const [record, alert] = notReady(false);
  // The alert also leaves out what was suspended within its duration: its duration is counted from
  // lastTransitionTime, and a resumed object waits it from the resume (alerts/src/suspended.ts).
  assert.match(
    alert ?? "",
    /unless on \(cluster, namespace, group, kind, name\) \(max_over_time\(cr_suspended\{job="cr-status-exporter"\}\[15m\]\) == 1\)$/,
  );
  assert.match(
    record ?? "",
    /unless on \(cluster, job, namespace, group, kind, name\) \(cr_suspended\{job="cr-status-exporter"\} == 1\)/,
  );
  for (const expr of notReady(true)) assert.doesNotMatch(expr, /cr_suspended/);
});
