// What the alert e2e tests on a real project's CRD share: the CRD (from its
// Go module) installed on the testbed, a namespace for its objects, the
// exporter watching its group with zero configuration, and a real Prometheus
// evaluating the shipped rules with some alerts' `for` shortened. Hooks are
// registered for the calling file; nothing is started when real CRDs are
// unavailable (the tests skip).
import assert from "node:assert/strict";
import { after, before } from "node:test";
import type { AlertOptions } from "../../alerts/src/index.ts";
import type { CrdManifest } from "../cluster/fixtures.ts";
import { type ControlPlaneHandle, installCrd, useControlPlane } from "../cluster/index.ts";
import type { PrometheusServer } from "../prometheus/index.ts";
import { type RulesPrometheus, shippedRulesFor, startWithRules } from "../prometheus/with-rules.ts";
import { realCrds, realCrdsUnavailable } from "../realcrds/index.ts";
import { type ExporterHandle, eventually, runExporter } from "./exporter.ts";

export const ALERTING_JOB = "cr-status-exporter";

export interface RealKindAlerting {
  /** Why the tests skip (no real CRDs here), else undefined. */
  readonly unavailable: string | undefined;
  readonly testbed: ControlPlaneHandle;
  /** These three throw if read before the file's before() hook ran. */
  readonly crd: CrdManifest;
  readonly namespace: string;
  readonly prometheus: PrometheusServer;
}

export function useRealKindAlerting(spec: {
  /** A real kind's id, e.g. "argo-cd/Application". */
  kind: string;
  group: string;
  namespace: string;
  shorterFor: Partial<AlertOptions["for"]>;
}): RealKindAlerting {
  const unavailable = realCrdsUnavailable();
  const testbed = useControlPlane();
  let exporter: ExporterHandle | undefined;
  let rules: RulesPrometheus | undefined;
  let crd: CrdManifest | undefined;
  let namespace: string | undefined;
  before(async () => {
    if (unavailable) return;
    const plane = await testbed.ready();
    [{ crd } = { crd: undefined }] = realCrds([spec.kind]);
    assert.ok(crd, `the CRD of ${spec.kind}`);
    await installCrd(plane.admin.rest, crd);
    namespace = await plane.createNamespace(spec.namespace);
    const running = await runExporter(plane.kubeconfigPath, { resources: [{ groups: [spec.group] }] });
    exporter = running;
    await eventually("exporter ready", async () => (await fetch(`${running.exporter.url}/readyz`)).ok);
    rules = await startWithRules(
      [{ job: ALERTING_JOB, targets: [new URL(running.exporter.url).host] }],
      shippedRulesFor(ALERTING_JOB, spec.shorterFor),
    );
  });
  after(async () => {
    await rules?.stop();
    await exporter?.stop();
  });
  const started = <T>(value: T | undefined, what: string): T => {
    assert.ok(value !== undefined, `${what} read before the before() hook ran`);
    return value;
  };
  return {
    unavailable,
    testbed,
    get crd() {
      return started(crd, "crd");
    },
    get namespace() {
      return started(namespace, "namespace");
    },
    get prometheus() {
      return started(rules, "prometheus").server;
    },
  };
}
