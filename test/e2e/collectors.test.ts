// The collectors end to end, on a real kube-apiserver: every metric family from
// real objects, the CRD lifecycle, a kind whose conditions alone carry the
// observed generation, a Forbidden resource, 410 Gone and an apiserver restart
// under the exporter.
import assert from "node:assert/strict";
import { after, afterEach, before, test } from "node:test";
import {
  changeSpec,
  condition,
  createCr,
  crPath,
  deleteCr,
  deleteCrd,
  getCr,
  installCrd,
  loadFixtureCrd,
  patchStatus,
  refFor,
  registerKind,
  updateStatus,
  useControlPlane,
} from "../cluster/index.ts";
import { type ExporterHandle, eventually, runExporter, series } from "../support/exporter.ts";
import { documentedFamilies } from "../support/metrics-doc.ts";
import { promtoolCheckMetrics } from "../support/promtool.ts";

const testbed = useControlPlane();
let exporter: ExporterHandle;
let ns: string;
/** Left out of the discovery entry's watch (excludeNamespaces). */
let excludedNs: string;

const obj = (name: string, namespace = ns) => ({ group: "example.com", kind: "Widget", namespace, name });

before(async () => {
  const rest = (await testbed.ready()).admin.rest;
  await installCrd(rest, "widgets");
  await installCrd(rest, "sprockets");
  ns = await testbed.plane.createNamespace("col");
  excludedNs = await testbed.plane.createNamespace("colx");
  exporter = await runExporter(testbed.plane.kubeconfigPath, {
    resources: [
      {
        group: "example.com",
        resource: "widgets",
        heartbeatField: "status.lastHeartbeatTime",
        labels: [{ fromLabel: "app", name: "app" }],
        // Every family, the opt-in ones too.
        metrics: { optIn: ["cr_*"] },
        phaseTransitions: { Pending: ["Provisioning"], Provisioning: ["Running"] },
      },
      {
        groups: ["example.com"],
        excludeNamespaces: [excludedNs],
        metrics: { optIn: ["cr_spec_generation_changes_total"] },
      },
    ],
  });
  await eventually("exporter ready", async () => (await fetch(`${exporter.exporter.url}/readyz`)).ok);
});

afterEach((t) => {
  if ("passed" in t && !t.passed && exporter)
    console.error(`# exporter log tail:\n${exporter.logs.slice(-40).join("\n")}`);
});

after(async () => {
  await exporter?.stop();
});

test("a widget's life: every per-object family follows the API", async () => {
  const rest = testbed.plane.admin.rest;
  const ref = refFor("widgets", ns, "life");
  await createCr(rest, ref, "life", { size: 1 }, { labels: { app: "shop" } });
  const labels = { ...obj("life"), app: "shop" };
  await eventually(
    "created",
    async () => (await exporter.scrape()).samples.get(series("cr_metadata_generation", labels)) === 1,
  );

  await patchStatus(rest, ref, {
    observedGeneration: 1,
    phase: "Pending",
    lastHeartbeatTime: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    conditions: [condition("Ready", "False", "Provisioning", "waiting", 1)],
  });
  await patchStatus(rest, ref, {
    phase: "Running",
    conditions: [condition("Ready", "True", "Reconciled", "ok", 1)],
  });
  const m = await eventually("Ready=True", async () => {
    if (process.env.DEBUG_E2E)
      console.error(
        (await exporter.scrape()).text
          .split("\n")
          .filter((l) => l.includes('"life"'))
          .join("\n"),
      );
    const s = await exporter.scrape();
    return s.samples.get(series("cr_condition", { ...labels, type: "Ready", status: "True" })) === 1
      ? s
      : undefined;
  });
  // One series per condition, labelled with its current status.
  assert.equal(m.samples.has(series("cr_condition", { ...labels, type: "Ready", status: "False" })), false);
  assert.equal(m.samples.has(series("cr_condition", { ...labels, type: "Ready", status: "Unknown" })), false);
  assert.equal(
    m.samples.get(series("cr_condition_reason", { ...labels, type: "Ready", reason: "Reconciled" })),
    1,
  );
  assert.equal(m.samples.get(series("cr_condition_stale", { ...labels, type: "Ready" })), 0);
  assert.equal(m.samples.get(series("cr_status_observed_generation", labels)), 1);
  assert.equal(m.samples.get(series("cr_generation_lag", labels)), 0);
  assert.equal(m.samples.get(series("cr_phase", { ...labels, phase: "Running" })), 1);
  assert.equal(
    m.samples.has(series("cr_phase", { ...labels, phase: "Pending" })),
    false,
    "the current phase only",
  );
  assert.equal(m.samples.get(series("cr_status", { ...labels, result: "Current" })), 1);
  assert.equal(m.samples.get(series("cr_status_updates_total", labels)), 2);
  assert.equal(
    m.samples.get(series("cr_condition_transitions_total", { ...labels, type: "Ready", status: "True" })),
    1,
  );
  const heartbeat = m.samples.get(series("cr_heartbeat_timestamp_seconds", labels)) ?? 0;
  assert.ok(Math.abs(heartbeat - Date.now() / 1000) < 120, `heartbeat timestamp ${heartbeat}`);
  // Pending → Running skips Provisioning: illegal by the configured table.
  assert.equal(
    m.samples.get(
      series("cr_phase_illegal_transitions_total", {
        group: "example.com",
        kind: "Widget",
        namespace: ns,
        from: "Pending",
        to: "Running",
      }),
    ),
    1,
  );
  assert.ok(
    (m.samples.get(`cr_time_to_ready_seconds_count{group="example.com",kind="Widget"}`) ?? 0) >= 1,
    "time to ready observed",
  );

  // Spec change: generation 2, lag until the controller catches up.
  const specAt = Math.floor(Date.now() / 1000);
  await changeSpec(rest, ref, { size: 2 });
  const lagging = await eventually("lag", async () => {
    const s = await exporter.scrape();
    return s.samples.get(series("cr_generation_lag", labels)) === 1 ? s : undefined;
  });
  assert.equal(lagging.samples.get(series("cr_metadata_generation", labels)), 2);
  assert.equal(lagging.samples.get(series("cr_spec_generation_changes_total", labels)), 1);
  assert.equal(lagging.samples.get(series("cr_condition_stale", { ...labels, type: "Ready" })), 1);
  assert.equal(lagging.samples.get(series("cr_status", { ...labels, result: "InProgress" })), 1);
  const requested = lagging.samples.get(series("cr_generation_requested_timestamp_seconds", labels)) ?? 0;
  assert.ok(
    requested >= specAt - 1 && requested <= Date.now() / 1000 + 1,
    `the wait starts at the spec write (${requested} vs ${specAt})`,
  );

  // The controller catches up (a status update), rewrites the same status with
  // only its heartbeat restamped (a no-op write), then changes a condition's
  // message alone (progress text: a status update, not a no-op).
  const caughtUp = await patchStatus(rest, ref, {
    observedGeneration: 2,
    conditions: [condition("Ready", "True", "Reconciled", "ok", 2)],
  });
  const restamped = await updateStatus(rest, ref, {
    ...caughtUp,
    status: { ...caughtUp.status, lastHeartbeatTime: "2030-01-01T00:00:00Z" },
  });
  await eventually(
    "heartbeat-only write counted as a no-op",
    async () => (await exporter.scrape()).samples.get(series("cr_status_noop_updates_total", labels)) === 1,
  );
  await updateStatus(rest, ref, {
    ...restamped,
    status: {
      ...restamped.status,
      conditions: [{ ...((restamped.status?.conditions ?? []) as object[])[0], message: "checked again" }],
    },
  });
  const settled = await eventually("message-only write counted as a status update", async () => {
    const s = await exporter.scrape();
    return s.samples.get(series("cr_status_updates_total", labels)) === 4 ? s : undefined;
  });
  assert.equal(settled.samples.get(series("cr_status_noop_updates_total", labels)), 1, "not a no-op");
  assert.equal(settled.samples.get(series("cr_generation_lag", labels)), 0);
  assert.equal(
    settled.samples.get(series("cr_generation_requested_timestamp_seconds", labels)),
    requested,
    "when generation 2 was requested: unchanged once observed",
  );
  assert.ok(
    (settled.samples.get(`cr_reconcile_duration_seconds_count{group="example.com",kind="Widget"}`) ?? 0) >= 1,
  );

  // Deletion with a finalizer: terminating, then gone.
  await rest.patch(crPath(ref), { metadata: { finalizers: ["example.com/hold"] } });
  await deleteCr(rest, ref);
  const terminating = await eventually("terminating", async () => {
    const s = await exporter.scrape();
    return s.samples.get(series("cr_status", { ...labels, result: "Terminating" })) === 1 ? s : undefined;
  });
  assert.ok((terminating.samples.get(series("cr_deletion_timestamp_seconds", labels)) ?? 0) > 1_700_000_000);
  await rest.patch(crPath(ref), { metadata: { finalizers: null } });
  await eventually(
    "series gone",
    async () => !(await exporter.scrape()).samples.has(series("cr_metadata_generation", labels)),
  );
});

test("every family on a live scrape is documented, and promtool accepts the exposition", async () => {
  const scrape = await exporter.scrape();
  const documented = documentedFamilies();
  const undocumented = [...scrape.families.keys()].filter(
    (name) => name.startsWith("cr_") && !documented.has(name.replace(/_total$/, "")) && !documented.has(name),
  );
  assert.deepEqual(undocumented, []);
  promtoolCheckMetrics(scrape.text);
  const om = await fetch(`${exporter.exporter.url}/metrics`, {
    headers: { Accept: "application/openmetrics-text" },
  });
  assert.match(om.headers.get("content-type") ?? "", /^application\/openmetrics-text; version=1\.0\.0/);
  assert.match(await om.text(), /# EOF\n$/);
  const gz = await fetch(`${exporter.exporter.url}/metrics`, { headers: { "Accept-Encoding": "gzip" } });
  assert.equal(gz.headers.get("content-encoding"), "gzip");
});

test("a kind whose conditions alone carry observedGeneration: lag and its wait start from the ready condition", async () => {
  const rest = testbed.plane.admin.rest;
  // The widget CRD without the top-level status.observedGeneration field.
  const crd = loadFixtureCrd("widgets");
  const flanges = JSON.parse(
    JSON.stringify(crd)
      .replaceAll("widgets", "flanges")
      .replaceAll("Widget", "Flange")
      .replaceAll("widget", "flange"),
  ) as typeof crd;
  const versions = flanges.spec.versions as unknown as {
    schema: { openAPIV3Schema: { properties: { status: { properties: Record<string, unknown> } } } };
  }[];
  for (const v of versions) delete v.schema.openAPIV3Schema.properties.status.properties.observedGeneration;
  await installCrd(rest, flanges);
  registerKind(flanges);
  const ref = { group: "example.com", version: "v1", plural: "flanges", namespace: ns, name: "f1" };
  await createCr(rest, ref, "f1", { size: 1 });
  await patchStatus(rest, ref, { conditions: [condition("Ready", "True", "Done", "", 1)] });
  const labels = { group: "example.com", kind: "Flange", namespace: ns, name: "f1" };
  const info = series("cr_exporter_resource_info", {
    group: "example.com",
    version: "v1",
    kind: "Flange",
    status_subresource: "true",
    conditions_path: "status.conditions",
    observed_generation_path: "",
    observed_generation_source: "condition",
    phase_path: "status.phase",
    ready_condition: "Ready",
    // No type enum in the schema: Ready is learned from the object.
    readiness_source: "observed",
    run_to_completion: "false",
    condition_times: "lastTransitionTime",
  });
  const first = await eventually("flange caught up, its readiness condition learned", async () => {
    const s = await exporter.scrape();
    return s.samples.get(series("cr_generation_lag", labels)) === 0 && s.samples.get(info) === 1
      ? s
      : undefined;
  });
  assert.equal(first.samples.get(info), 1, "the info series says where the observed generation comes from");
  assert.equal(first.samples.has(series("cr_status_observed_generation", labels)), false);

  const specAt = Math.floor(Date.now() / 1000);
  await changeSpec(rest, ref, { size: 2 });
  const waiting = await eventually("flange waiting", async () => {
    const s = await exporter.scrape();
    return s.samples.get(series("cr_generation_lag", labels)) === 1 ? s : undefined;
  });
  const requested = waiting.samples.get(series("cr_generation_requested_timestamp_seconds", labels)) ?? 0;
  assert.ok(
    requested >= specAt - 1 && requested <= Date.now() / 1000 + 1,
    `wait start ${requested} vs ${specAt}`,
  );
  await patchStatus(rest, ref, { conditions: [condition("Ready", "True", "Done", "", 2)] });
  await eventually(
    "flange caught up again",
    async () => (await exporter.scrape()).samples.get(series("cr_generation_lag", labels)) === 0,
  );
});

test("excludeNamespaces: an excluded namespace's objects never reach the exporter; the others do", async () => {
  const rest = testbed.plane.admin.rest;
  await createCr(rest, refFor("sprockets", excludedNs, "hidden"), "hidden", { size: 1 });
  // Created after the hidden one: once it is seen, the watch has passed the hidden one's creation.
  await createCr(rest, refFor("sprockets", ns, "shown"), "shown", { size: 1 });
  const sprocket = (namespace: string, name: string) => ({
    group: "example.com",
    kind: "Sprocket",
    namespace,
    name,
  });
  const seen = await eventually("the sprocket outside the excluded namespace seen", async () => {
    const s = await exporter.scrape();
    return s.samples.has(series("cr_metadata_generation", sprocket(ns, "shown"))) ? s : undefined;
  });
  const hidden = [...seen.samples.keys()].filter((key) => key.includes(`namespace="${excludedNs}"`));
  assert.deepEqual(hidden, [], "no series of the excluded namespace");
});

test("a kind without a status subresource: flagged in its info series, status writes are not spec changes", async () => {
  const rest = testbed.plane.admin.rest;
  const ref = refFor("sprockets", ns, "s1");
  await createCr(rest, ref, "s1", { size: 1 });
  const labels = { group: "example.com", kind: "Sprocket", namespace: ns, name: "s1" };
  await eventually("sprocket seen", async () =>
    (await exporter.scrape()).samples.has(series("cr_metadata_generation", labels)),
  );
  // Status written through the main resource, as it must be here: each write bumps metadata.generation.
  const ready = condition("Ready", "True");
  await rest.patch(crPath(ref), { status: { conditions: [ready] } });
  await rest.patch(crPath(ref), { status: { conditions: [{ ...ready, message: "3 of 3 teeth" }] } });
  const written = await eventually("two status writes", async () => {
    const s = await exporter.scrape();
    return s.samples.get(series("cr_status_updates_total", labels)) === 2 ? s : undefined;
  });
  assert.equal(
    written.samples.get(series("cr_metadata_generation", labels)),
    3,
    "each status write bumped generation",
  );
  assert.equal(written.samples.get(series("cr_condition", { ...labels, type: "Ready", status: "True" })), 1);
  assert.equal(
    written.samples.get(series("cr_spec_generation_changes_total", labels)),
    0,
    "status writes are not spec changes",
  );
  const info = [...written.samples.keys()].find(
    (k) => k.startsWith("cr_exporter_resource_info{") && k.includes('kind="Sprocket"'),
  );
  assert.match(info ?? "", /status_subresource="false"/);

  await changeSpec(rest, ref, { size: 2 });
  const changed = await eventually("spec change counted", async () => {
    const s = await exporter.scrape();
    return s.samples.get(series("cr_spec_generation_changes_total", labels)) === 1 ? s : undefined;
  });
  assert.equal(changed.samples.get(series("cr_metadata_generation", labels)), 4);
  assert.equal(
    changed.samples.get(series("cr_status_updates_total", labels)),
    2,
    "a spec change is not a status write",
  );
  assert.equal(changed.samples.get(series("cr_status_noop_updates_total", labels)), 0);
});

test("CRD installed after start, deleted, and re-installed: series appear, disappear, reappear", async () => {
  const rest = testbed.plane.admin.rest;
  const labels = { group: "example.com", kind: "Gizmo", namespace: ns, name: "g1" };
  const key = series("cr_metadata_generation", labels);
  for (const round of [1, 2]) {
    await installCrd(rest, "gizmos");
    await createCr(rest, refFor("gizmos", ns, "g1"), "g1", { size: round });
    await eventually(
      `gizmo series (round ${round})`,
      async () => (await exporter.scrape()).samples.get(key) === 1,
      20_000,
    );
    await deleteCrd(rest, "gizmos.example.com");
    await eventually(
      `gizmo series gone (round ${round})`,
      async () => !(await exporter.scrape()).samples.has(key),
      20_000,
    );
  }
});

test("410 Gone after an apiserver restart with missed changes: relist, no lost delete, no double count", async () => {
  const { plane } = testbed;
  const rest = plane.admin.rest;
  const gone = refFor("widgets", ns, "gone");
  const changed = refFor("widgets", ns, "changed");
  await createCr(rest, gone, "gone");
  await createCr(rest, changed, "changed");
  await patchStatus(rest, changed, { conditions: [condition("Ready", "False", "Waiting", "", 1)] });
  await eventually("both seen", async () => {
    const s = await exporter.scrape();
    return (
      s.samples.has(series("cr_condition", { ...obj("changed"), app: "", type: "Ready", status: "False" })) &&
      s.samples.has(series("cr_metadata_generation", { ...obj("gone"), app: "" }))
    );
  });
  const relistsBefore = (await exporter.scrape()).samples.get(
    `cr_exporter_relists_total{group="example.com",version="v1",kind="Widget",reason="expired"}`,
  );

  await plane.restartApiserver(async (other) => {
    // Changes the exporter cannot see as events: its apiserver is down.
    await deleteCr(other, gone);
    await patchStatus(other, changed, { conditions: [condition("Ready", "True", "Done", "", 1)] });
    await createCr(other, refFor("widgets", ns, "born"), "born");
    await plane.compactEtcd();
  });
  const backAt = Date.now();

  const s = await eventually(
    "state equal to the API's truth",
    async () => {
      const m = await exporter.scrape();
      const seen = {
        gone: m.samples.get(series("cr_metadata_generation", { ...obj("gone"), app: "" })),
        changedReady: m.samples.get(
          series("cr_condition", { ...obj("changed"), app: "", type: "Ready", status: "True" }),
        ),
        born: m.samples.get(series("cr_metadata_generation", { ...obj("born"), app: "" })),
      };
      if (seen.gone === undefined && seen.changedReady === 1 && seen.born === 1) return m;
      // Thrown, not returned: eventually's timeout error then prints what was seen last.
      throw new Error(`seen ${JSON.stringify(seen)}`);
    },
    // Generous: the restarted apiserver, the 410 and the relist share two busy cores.
    60_000,
  );
  console.error(`# state matched the API ${Date.now() - backAt} ms after the apiserver was back`);
  if (process.env.DEBUG_E2E) {
    const { writeFileSync } = await import("node:fs");
    writeFileSync("/tmp/scrape.txt", s.text);
    writeFileSync("/tmp/exporter.log", exporter.logs.join("\n"));
  }
  const relists =
    s.samples.get(
      `cr_exporter_relists_total{group="example.com",version="v1",kind="Widget",reason="expired"}`,
    ) ?? 0;
  assert.ok(
    relists > (relistsBefore ?? 0),
    `an expired-resourceVersion relist happened (${relistsBefore} → ${relists}; ${[...s.samples.keys()].filter((k) => k.includes("relists_total")).join(" ")})`,
  );
  assert.equal(
    s.samples.get(
      series("cr_condition_transitions_total", { ...obj("changed"), app: "", type: "Ready", status: "True" }),
    ),
    1,
    "the coalesced transition is counted once",
  );
  const truth = await getCr(rest, changed);
  assert.equal(((truth.status?.conditions ?? []) as { status: string }[])[0]?.status, "True");
});

test("a Forbidden resource never hides the others, and /readyz says why", async () => {
  const { plane } = testbed;
  const user = plane.mintUser();
  await plane.grantCluster(user, [
    {
      apiGroups: ["apiextensions.k8s.io"],
      resources: ["customresourcedefinitions"],
      verbs: ["list", "watch"],
    },
    { apiGroups: ["example.com"], resources: ["widgets"], verbs: ["list", "watch"] },
  ]);
  const limited = await runExporter(user.kubeconfigPath, { resources: [{ groups: ["example.com"] }] });
  try {
    await createCr(plane.admin.rest, refFor("widgets", ns, "visible"), "visible");
    const s = await eventually("widgets exported despite forbidden sprockets", async () => {
      const m = await limited.scrape();
      return m.samples.get(series("cr_metadata_generation", obj("visible"))) === 1 &&
        (m.samples.get(
          `cr_exporter_watch_errors_total{group="example.com",version="v1",kind="Sprocket",operation="list",code="403"}`,
        ) ?? 0) >= 1
        ? m
        : undefined;
    });
    assert.equal(
      s.samples.get(`cr_exporter_resource_synced{group="example.com",version="v1",kind="Widget"}`),
      1,
    );
    const ready = await fetch(`${limited.exporter.url}/readyz`);
    assert.equal(ready.status, 503);
    const body = await ready.text();
    assert.match(body, /widgets\.example\.com\/v1: synced, data \d+ s old/);
    assert.match(
      body,
      /sprockets\.example\.com\/v1: not ready: initial list in progress; last error: list failed \(HTTP 403\)/,
    );
    assert.ok((await fetch(`${limited.exporter.url}/metrics`)).ok, "/metrics keeps serving");
  } finally {
    await limited.stop();
  }
});

test("when listing CRDs is forbidden, /readyz says so instead of calling the configured resources not installed", async () => {
  const { plane } = testbed;
  const user = plane.mintUser();
  await plane.grantCluster(user, [
    { apiGroups: ["example.com"], resources: ["widgets"], verbs: ["list", "watch"] },
  ]);
  const limited = await runExporter(user.kubeconfigPath, {
    resources: [{ group: "example.com", resource: "widgets" }],
  });
  try {
    const body = await eventually("/readyz names the forbidden CRD list", async () => {
      const ready = await fetch(`${limited.exporter.url}/readyz`);
      const text = await ready.text();
      return ready.status === 503 && text.includes("HTTP 403") ? text : undefined;
    });
    assert.match(
      body,
      /customresourcedefinitions: cannot be listed, so no resource is watched yet and whether the configured ones are installed is unknown: list customresourcedefinitions failed \(HTTP 403\)/,
    );
    assert.doesNotMatch(body, /no such CRD/);
  } finally {
    await limited.stop();
  }
});
