// A controller that writes status the way production controllers do, on
// cert-manager's real Certificate CRD (from its Go module) and a real
// kube-apiserver: the test operator (controller-runtime, client-go) in
// cert-manager's status shape — no status.observedGeneration, each condition
// with its own, Issuing written before Ready, Ready=False then a reason change,
// Ready=True, then two more status writes while Ready stays True — watched by
// the zero-config exporter with tracing into a real Jaeger. One observation of
// cr_reconcile_duration_seconds per reconciled generation, and the time the
// certificate spent not Ready is a `condition Ready` child of each
// generation's trace.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import * as attr from "../../src/tracing/attributes.ts";
import { generationTraceKey, traceIdOf } from "../../src/tracing/ids.ts";
import {
  type CrdManifest,
  changeSpec,
  createCr,
  deleteCr,
  getCr,
  installCrd,
  registerKind,
  useControlPlane,
} from "../cluster/index.ts";
import { type JaegerSpan, type JaegerTrace, useJaeger } from "../jaeger/index.ts";
import { startWidgetOperator, type WidgetOperator } from "../operator/index.ts";
import { realCrds, realCrdsUnavailable } from "../realcrds/index.ts";
import { refOf } from "../realcrds/testbed.ts";
import { type ExporterHandle, eventually, runExporter, series } from "../support/exporter.ts";

const testbed = useControlPlane();
const backend = useJaeger();
const unavailable = realCrdsUnavailable();

let crd: CrdManifest;
let namespace = "";
let operator: WidgetOperator | undefined;
let handle: ExporterHandle | undefined;
const cluster = `e2e-${randomBytes(3).toString("hex")}`;

before(async () => {
  if (unavailable) return;
  const plane = await testbed.ready();
  const found = realCrds(["cert-manager/Certificate"])[0];
  assert.ok(found, "cert-manager's Certificate CRD");
  crd = await installCrd(plane.admin.rest, found.crd);
  registerKind(crd);
  namespace = await plane.createNamespace("certs");
  handle = await runExporter(plane.kubeconfigPath, {
    // Zero configuration for the group: detection decides from the real schema and the first objects.
    resources: [{ groups: ["cert-manager.io"], namespaces: [namespace] }],
    tracing: { endpoint: backend.jaeger.otlpEndpoint, clusterName: cluster },
  });
  const exporter = handle.exporter;
  await eventually("exporter ready", async () => (await fetch(`${exporter.url}/readyz`)).ok, 30_000);
  operator = startWidgetOperator({
    kubeconfig: plane.kubeconfigPath,
    namespace,
    workDelay: "2s",
    certificates: true,
  });
  await operator.waitForLine(/^starting$/, 30_000);
});

after(async () => {
  await operator?.stop();
  await handle?.stop();
});

const reconciles = series("cr_reconcile_duration_seconds_count", {
  group: "cert-manager.io",
  kind: "Certificate",
});

/** Waits until the exporter has seen the object's current version, then reads its /metrics. */
async function caughtUp(name: string): Promise<Map<string, number>> {
  const ref = refOf(crd, namespace, name);
  const current = await getCr(testbed.plane.admin.rest, ref);
  const collector = () =>
    handle?.exporter.manager.collectors().find((c) => c.identity.kind === "Certificate");
  await eventually(
    `the exporter saw ${name} at resourceVersion ${current.metadata.resourceVersion}`,
    async () => {
      const entry = collector()?.store.get(current.metadata.uid);
      return entry?.state.resourceVersion === current.metadata.resourceVersion;
    },
  );
  const scrape = await handle?.scrape();
  assert.ok(scrape);
  return scrape.samples;
}

function tag(span: JaegerSpan, key: string): unknown {
  return span.tags.find((t) => t.key === key)?.value;
}

/** "root outcome: child(status), …" for one trace. */
function outline(trace: JaegerTrace): string {
  const root = trace.spans.find((s) => !s.references.some((r) => r.refType === "CHILD_OF"));
  assert.ok(root, "a root span");
  const children = trace.spans
    .filter((s) => s !== root)
    .map((s) => `${s.operationName}(${String(tag(s, attr.CONDITION_STATUS))})`)
    .sort();
  return `${root.operationName} ${String(tag(root, attr.OUTCOME))}: ${children.join(", ")}`;
}

test("a controller writing cert-manager's status shape: one reconcile per generation, the not-Ready time a child of each generation's trace", {
  skip: unavailable,
}, async () => {
  const { rest } = testbed.plane.admin;
  const running = operator;
  assert.ok(running);
  const ref = refOf(crd, namespace, "site");
  const created = await createCr(rest, ref, "site", {
    secretName: "site-tls",
    dnsNames: ["site.example.com"],
    issuerRef: { name: "ca", kind: "Issuer" },
  });
  const uid = created.metadata.uid;

  await running.waitForLine(new RegExp(`^renewal ${namespace}/site generation 1$`), 60_000);
  const afterFirst = await caughtUp("site");
  assert.equal(
    afterFirst.get(reconciles),
    1,
    "generation 1 reconciled once, whatever the later status writes",
  );
  assert.equal(
    afterFirst.get(
      series("cr_status", {
        group: "cert-manager.io",
        kind: "Certificate",
        namespace,
        name: "site",
        result: "Current",
      }),
    ),
    1,
  );
  const first = await backend.jaeger.waitForTrace(traceIdOf(generationTraceKey(cluster, uid, 1)), 2);
  assert.equal(
    outline(first),
    "Certificate generation ready: condition Ready(False)",
    "the first not-Ready interval is a child of generation 1",
  );

  await changeSpec(rest, ref, { dnsNames: ["site.example.com", "www.site.example.com"] });
  await running.waitForLine(new RegExp(`^renewal ${namespace}/site generation 2$`), 60_000);
  const afterSecond = await caughtUp("site");
  assert.equal(afterSecond.get(reconciles), 2, "one more observation for generation 2");
  const second = await backend.jaeger.waitForTrace(traceIdOf(generationTraceKey(cluster, uid, 2)), 2);
  assert.equal(outline(second), "Certificate generation ready: condition Ready(False)");

  await deleteCr(rest, ref);
  await eventually("the exporter forgot the certificate", async () => {
    const collector = handle?.exporter.manager.collectors().find((c) => c.identity.kind === "Certificate");
    return collector?.store.get(uid) === undefined;
  });
  assert.equal((await handle?.scrape())?.samples.get(reconciles), 2, "a deletion observes nothing");
});
