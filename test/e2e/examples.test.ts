// examples/ on the testbed: every CRD the six projects' modules ship
// installed, realistic objects of each catalog kind placed (healthy,
// progressing, failed, suspended, terminating). The exporter with zero
// configuration must watch every kind and give each object the cr_status
// docs/compatibility.md lists; and for each example the
// exporter run with its config.yaml as a user bound to nothing but its
// rbac.yaml. The exporter must sync every kind the configuration selects
// (the ClusterRole is enough), the user must be refused anything else (it is
// not more), and for every object the scrape must say exactly what the
// object says — its conditions, phase, states, generation and suspension,
// nothing invented — and the cr_status the example's rules give. The chart
// must render each example's alert values into rules promtool accepts.
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, test } from "node:test";
import { parse, stringify } from "yaml";
import { renderRuleFile } from "../../alerts/src/index.ts";
import { seconds } from "../../alerts/src/rule-text.ts";
import { repositoryRoot } from "../../scripts/deploy-sync.ts";
import { type CrdManifest, installCrd, useControlPlane } from "../cluster/index.ts";
import { find, helmTemplate, type KubeObject, minimalValues } from "../deploy/render.ts";
import { bindClusterRole } from "../deploy/rendered-run.ts";
import { resolveDeployTools } from "../deploy/tools.ts";
import { runPromtool } from "../prometheus/binaries.ts";
import { PrometheusServer } from "../prometheus/server.ts";
import { projectCrds, type RealKind, realCrdsUnavailable, realKinds } from "../realcrds/index.ts";
import { draftBuilders, type ObjectDraft } from "../realcrds/objects/index.ts";
import { placeDraft } from "../realcrds/testbed.ts";
import { zeroConfigStatuses } from "../realcrds/zero-config.ts";
import { type ExporterHandle, eventually, runExporter } from "../support/exporter.ts";

const unavailable = realCrdsUnavailable();
const testbed = useControlPlane();
const examples = join(repositoryRoot, "examples");
const projects = ["cert-manager", "flux", "argo-cd", "crossplane", "cluster-api", "cloudnative-pg"];

interface Placed {
  kind: RealKind;
  crd: CrdManifest;
  draft: ObjectDraft;
  name: string;
  namespace: string;
  generation: number;
}

let namespace = "";
const placed: Placed[] = [];
const crdsOf = new Map<string, CrdManifest[]>();

before(async () => {
  if (unavailable) return;
  const { rest } = (await testbed.ready()).admin;
  namespace = await testbed.plane.createNamespace("ex");
  const started = performance.now();
  for (const project of projects) {
    const crds = projectCrds(project);
    crdsOf.set(project, crds);
    for (const crd of crds) await installCrd(rest, crd);
  }
  const count = [...crdsOf.values()].reduce((n, list) => n + list.length, 0);
  console.error(
    `# ${count} CRDs of ${projects.length} projects Established in ${Math.round(performance.now() - started)} ms`,
  );
  const clock = { now: new Date() };
  for (const kind of realKinds.filter((k) => projects.includes(k.project))) {
    const crd = crdsOf.get(kind.project)?.find((c) => c.metadata.name === kind.crd);
    assert.ok(crd, kind.id);
    for (const draft of draftBuilders[kind.id]?.(clock) ?? []) {
      const name = `${kind.kind.toLowerCase()}-${draft.scenario}`;
      // Terminating objects stay (their finalizer is never removed) until the testbed goes.
      const object = await placeDraft(rest, crd, namespace, name, draft);
      const metadata = object.served.metadata as { generation: number };
      const scoped = crd.spec.scope === "Namespaced" ? namespace : "";
      placed.push({ kind, crd, draft, name, namespace: scoped, generation: metadata.generation });
    }
  }
  console.error(`# ${placed.length} objects of ${new Set(placed.map((p) => p.kind.id)).size} kinds placed`);
});

/** cr_status per example, kind and scenario: what the example's configuration makes of each object. */
const statuses: Record<string, Record<string, string>> = {
  "cert-manager": lifecycle({
    Certificate: "healthy=Current progressing=InProgress failed=Failed",
    Issuer: "healthy=Current failed=Failed",
    ClusterIssuer: "healthy=Current failed=Failed",
    CertificateRequest: "healthy=Current progressing=InProgress failed=Failed",
  }),
  // A suspended object keeps the status it had (Ready=False here): cr_status says so, cr_suspended tells why.
  flux: lifecycle({
    Kustomization: "healthy=Current progressing=InProgress failed=Failed suspended=Failed",
    HelmRelease: "healthy=Current progressing=InProgress failed=Failed suspended=Failed",
    GitRepository: "healthy=Current progressing=InProgress failed=Failed suspended=Failed",
    HelmRepository: "healthy=Current progressing=InProgress failed=Failed suspended=Failed",
    OCIRepository: "healthy=Current progressing=InProgress failed=Failed suspended=Failed",
  }),
  // Health Suspended (a paused rollout inside the app) is neither ready nor failed.
  "argo-cd": lifecycle({
    Application: "healthy=Current progressing=InProgress failed=Failed suspended=InProgress",
  }),
  // Packages judged by Healthy (zero config calls every package Current), XRDs by Established.
  crossplane: lifecycle({
    CompositeResourceDefinition: "healthy=Current",
    Provider: "healthy=Current progressing=InProgress failed=Failed suspended=Current",
    Object: "healthy=Current progressing=InProgress failed=Failed suspended=Current",
  }),
  // Paused with healthy conditions: Current, and cr_suspended.
  "cluster-api": lifecycle({
    Cluster: "healthy=Current progressing=InProgress failed=Failed suspended=Current",
    Machine: "healthy=Current progressing=InProgress failed=Failed suspended=Current",
    MachineDeployment: "healthy=Current progressing=InProgress failed=Failed suspended=Current",
  }),
  // Hibernated: Ready=False for a minute, within failedAfter.
  "cloudnative-pg": lifecycle({
    Cluster: "healthy=Current progressing=InProgress failed=Failed suspended=InProgress",
    Backup: "healthy=Current progressing=InProgress failed=Failed",
  }),
};

/** "scenario=result …" per kind → "Kind scenario" → result; every object that is terminating is Terminating. */
function lifecycle(kinds: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [kind, results] of Object.entries(kinds)) {
    for (const pair of results.split(" ")) {
      const [scenario, result] = pair.split("=");
      out[`${kind} ${scenario}`] = result as string;
    }
    out[`${kind} terminating`] = "Terminating";
  }
  return out;
}

type Samples = Map<string, number>;

/** The label values of `label` on the series of `family` for one object. */
function valuesOf(samples: Samples, family: string, object: Placed, group: string, label: string): string[] {
  const open = `${family}{group="${group}",kind="${object.kind.kind}",namespace="${object.namespace}",name="${object.name}"`;
  return [...samples.keys()]
    .filter((key) => key.startsWith(open) && /^[,}]/.test(key.slice(open.length)))
    .map((key) =>
      label === "" ? String(samples.get(key)) : (new RegExp(`[{,]${label}="([^"]*)"`).exec(key)?.[1] ?? "?"),
    );
}

function read(value: unknown, path: string): unknown {
  let at = value;
  for (const key of path.split(".")) at = (at as Record<string, unknown> | undefined)?.[key];
  return at;
}

interface StateField {
  name: string;
  path: string;
}

/** What the object itself says, as the exporter must show it: read from the draft at the paths the exporter reports. */
function expectedOf(object: Placed, info: Record<string, string>, states: StateField[]) {
  const whole = { spec: object.draft.spec, status: object.draft.status };
  const raw = info.conditions_path ? read(whole, info.conditions_path) : undefined;
  const conditions = (Array.isArray(raw) ? raw : [])
    .filter((c) => typeof c?.type === "string" && typeof c?.status === "string")
    .map((c) => `${c.type}=${c.status}`)
    .sort();
  const phase = info.phase_path ? read(whole, info.phase_path) : undefined;
  return {
    conditions,
    phase: typeof phase === "string" ? [phase] : [],
    states: states
      .map(({ name, path }) => [name, read(whole, path)])
      .filter(([, v]) => typeof v === "string" && v !== "")
      .map(([n, v]) => `${n}=${v}`),
    generation: [String(object.generation)],
  };
}

/** The labels of each cr_exporter_resource_info series, by group/kind: the kinds the exporter watches. */
async function watched(exporter: ExporterHandle): Promise<Map<string, Record<string, string>>> {
  const selected = new Map<string, Record<string, string>>();
  const { samples } = await exporter.scrape();
  for (const key of samples.keys()) {
    if (!key.startsWith("cr_exporter_resource_info{")) continue;
    const labels = Object.fromEntries([...key.matchAll(/([a-z_]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    selected.set(`${labels.group}/${labels.kind}`, labels as Record<string, string>);
  }
  return selected;
}

async function ready(exporter: ExporterHandle, what: string): Promise<void> {
  let readyz = "";
  await eventually(
    what,
    async () => {
      const response = await fetch(`${exporter.exporter.url}/readyz`);
      readyz = await response.text();
      return response.ok;
    },
    60_000,
  ).catch((error) => {
    throw new Error(`${(error as Error).message}\n${readyz}\n${exporter.logs.slice(-30).join("\n")}`);
  });
}

interface Rules {
  /** The pinned cr_status of an object ("Kind scenario"), undefined when not pinned. */
  status: (object: Placed) => string | undefined;
  /** The state fields of a kind the exporter reads. */
  states: (info: Record<string, string>) => StateField[];
  /** Whether the object is read as suspended. */
  suspended: (object: Placed) => boolean;
}

/**
 * Waits until every object is exported as it says: exactly its conditions,
 * phase, states and generation (nothing invented), cr_suspended 1 exactly
 * when suspended, and the pinned cr_status. Fails with every mismatch, and
 * when an object's cr_status is not pinned.
 */
async function exportedAsTheySay(
  exporter: ExporterHandle,
  objects: Placed[],
  selected: Map<string, Record<string, string>>,
  rules: Rules,
): Promise<void> {
  let mismatches: string[] = [];
  let got: Record<string, string> = {};
  await eventually(
    "every object exported as it says",
    async () => {
      const { samples } = await exporter.scrape();
      mismatches = [];
      got = {};
      for (const object of objects) {
        const group = object.crd.spec.group;
        const info = selected.get(`${group}/${object.kind.kind}`) as Record<string, string>;
        const want = expectedOf(object, info, rules.states(info));
        const pairs = (family: string, a: string, b: string) => {
          const second = valuesOf(samples, family, object, group, b);
          return valuesOf(samples, family, object, group, a).map((v, i) => `${v}=${second[i]}`);
        };
        const seen = {
          conditions: pairs("cr_condition", "type", "status").sort(),
          phase: valuesOf(samples, "cr_phase", object, group, "phase"),
          states: pairs("cr_state", "field", "value"),
          generation: valuesOf(samples, "cr_metadata_generation", object, group, ""),
        };
        const id = `${object.kind.kind} ${object.draft.scenario}`;
        if (JSON.stringify(seen) !== JSON.stringify(want))
          mismatches.push(`${id}: scraped ${JSON.stringify(seen)}, the object says ${JSON.stringify(want)}`);
        const suspended = valuesOf(samples, "cr_suspended", object, group, "").join(",");
        const shouldSuspend = object.draft.scenario === "suspended" && rules.suspended(object);
        if (suspended !== (shouldSuspend ? "1" : ""))
          mismatches.push(`${id}: cr_suspended [${suspended}], want [${shouldSuspend ? "1" : ""}]`);
        const status = valuesOf(samples, "cr_status", object, group, "result").join(",");
        got[id] = status;
        const pinned = rules.status(object);
        if (pinned !== undefined && status !== pinned)
          mismatches.push(`${id}: cr_status ${status}, want ${pinned}`);
      }
      return mismatches.length === 0;
    },
    30_000,
  ).catch((error) => {
    throw new Error(`${(error as Error).message}\n${mismatches.join("\n")}`);
  });
  const missing = objects
    .filter((o) => rules.status(o) === undefined)
    .map((o) => `${o.kind.kind} ${o.draft.scenario}`);
  assert.deepEqual(missing, [], `cr_status not pinned for ${JSON.stringify(got)}`);
}

/** spec.suspend or spec.paused: the switches zero configuration detects. */
const specSuspended = (object: Placed): boolean => {
  const spec = object.draft.spec as { suspend?: boolean; paused?: boolean };
  return spec.suspend === true || spec.paused === true;
};
const detectedStates = (info: Record<string, string>): StateField[] =>
  info.readiness_source === "states"
    ? [
        { name: "health", path: "status.health.status" },
        { name: "sync", path: "status.sync.status" },
      ]
    : [];

test("zero configuration: every kind of the six projects watched, each object exported as it says, cr_status as docs/compatibility.md has it", {
  skip: unavailable,
}, async (t) => {
  const exporter = await runExporter(testbed.plane.kubeconfigPath, {});
  t.after(() => exporter.stop());
  await ready(exporter, "/readyz: every CRD's kind listed");
  const selected = await watched(exporter);
  const crds = [...crdsOf.values()].flat();
  assert.deepEqual(
    [...selected.keys()].sort(),
    crds.map((c) => `${c.spec.group}/${c.spec.names.kind}`).sort(),
    "every CRD of the six projects is watched",
  );
  await exportedAsTheySay(exporter, placed, selected, {
    status: (o) => zeroConfigStatuses(o.kind.id)[o.draft.scenario],
    states: detectedStates,
    suspended: specSuspended,
  });
});

for (const example of projects) {
  test(`examples/${example}: as a user with only its ClusterRole, the exporter syncs what its configuration selects and exports what each object says`, {
    skip: unavailable,
  }, async (t) => {
    const { plane } = testbed;
    const dir = join(examples, example);
    const config = parse(readFileSync(join(dir, "config.yaml"), "utf8")) as {
      resources: { states?: StateField[]; kinds?: { kind?: string; values?: ExampleValue[] }[] }[];
    };
    const role = parse(readFileSync(join(dir, "rbac.yaml"), "utf8")) as KubeObject;
    const user = plane.mintUser();
    await bindClusterRole(plane.admin.rest, user, role);
    const exporter = await runExporter(user.kubeconfigPath, config);
    t.after(() => exporter.stop());
    await ready(exporter, "/readyz: every selected kind listed with the ClusterRole's permissions");

    // Not more than it needs: nothing else of the cluster is readable.
    for (const path of ["/api/v1/secrets", "/api/v1/configmaps", "/apis/apps/v1/deployments"])
      assert.equal((await user.rest.raw("GET", path)).status, 403, `${example}: ${path}`);
    const granted = new Set((role.rules as { apiGroups: string[] }[]).flatMap((r) => r.apiGroups));
    const foreign = realKinds.find((k) => !granted.has(k.crd.split(".").slice(1).join(".")));
    assert.ok(foreign, "a kind of another project");
    const [plural, ...group] = foreign.crd.split(".");
    const version = projectCrds(foreign.project)
      .find((c) => c.metadata.name === foreign.crd)
      ?.spec.versions.find((v) => v.storage)?.name;
    const refused = await user.rest.raw("GET", `/apis/${group.join(".")}/${version}/${plural}`);
    assert.equal(refused.status, 403, `${example}: ${foreign.crd}`);

    const selected = await watched(exporter);
    const ours = placed.filter(
      (p) => p.kind.project === example && selected.has(`${p.crd.spec.group}/${p.kind.kind}`),
    );
    assert.ok(
      ours.length > 0,
      `${example}: no object of a selected kind (selected: ${[...selected.keys()]})`,
    );
    const configured = config.resources.flatMap((r) => r.states ?? []);
    await exportedAsTheySay(exporter, ours, selected, {
      status: (o) => statuses[example]?.[`${o.kind.kind} ${o.draft.scenario}`],
      states: (info) => (info.readiness_source === "states" ? detectedStates(info) : configured),
      suspended: (o) => specSuspended(o) || suspendedByExample(example, o),
    });
    await valuesAsTheySay(
      exporter,
      ours,
      config.resources.flatMap((r) => r.kinds ?? []),
    );
  });
}

interface ExampleValue {
  path: string;
  name?: string;
  type?: string;
}

/**
 * The example's `values` (numbers, or timestamps as Unix seconds) equal what
 * each object of the kind holds at the path, read here without the exporter's
 * code; a field the object lacks has no series. At least one value is checked.
 */
async function valuesAsTheySay(
  exporter: ExporterHandle,
  objects: Placed[],
  kinds: { kind?: string; values?: ExampleValue[] }[],
): Promise<void> {
  const wanted = (object: Placed): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const value of kinds.filter((k) => k.kind === object.kind.kind).flatMap((k) => k.values ?? [])) {
      const [root, ...rest] = value.path.split(".");
      let at: unknown =
        root === "spec" ? object.draft.spec : root === "status" ? object.draft.status : undefined;
      for (const key of rest) at = (at as Record<string, unknown> | undefined)?.[key];
      const name = value.name ?? rest.at(-1) ?? "";
      if (typeof at === "number") out[name] = at;
      if (typeof at === "string" && value.type === "timestamp") out[name] = Date.parse(at) / 1000;
    }
    return out;
  };
  const checked = objects.filter((o) => Object.keys(wanted(o)).length > 0);
  if (kinds.some((k) => k.values)) assert.ok(checked.length > 0, "an object of a kind with values");
  let mismatches: string[] = [];
  await eventually(
    "every configured value exported as the object holds it",
    async () => {
      const { samples } = await exporter.scrape();
      mismatches = [];
      for (const object of objects) {
        const names = valuesOf(samples, "cr_value", object, object.crd.spec.group, "field");
        const numbers = valuesOf(samples, "cr_value", object, object.crd.spec.group, "");
        const seen = Object.fromEntries(names.map((n, i) => [n, Number(numbers[i])]));
        const want = wanted(object);
        if (JSON.stringify(seen, Object.keys(seen).sort()) !== JSON.stringify(want, Object.keys(want).sort()))
          mismatches.push(
            `${object.kind.kind} ${object.draft.scenario}: ${JSON.stringify(seen)}, want ${JSON.stringify(want)}`,
          );
      }
      return mismatches.length === 0;
    },
    30_000,
  ).catch((error) => {
    throw new Error(`${(error as Error).message}\n${mismatches.join("\n")}`);
  });
}

/** Which suspended drafts the example's suspendAnnotation reads as suspended (the others stay in their status). */
function suspendedByExample(example: string, object: Placed): boolean {
  const annotations = object.draft.annotations ?? {};
  if (example === "cloudnative-pg") return annotations["cnpg.io/hibernation"] === "on";
  if (example === "cluster-api") return "cluster.x-k8s.io/paused" in annotations;
  if (example === "crossplane") return annotations["crossplane.io/paused"] === "true";
  return false;
}

test("each example's alert values render through the chart into rules promtool accepts", {
  skip: unavailable,
}, () => {
  const tools = resolveDeployTools();
  const chart = join(repositoryRoot, "deploy", "helm", "cr-status-exporter");
  const scratch = mkdtempSync(join(tmpdir(), "cr-example-rules-"));
  try {
    for (const example of projects) {
      const valuesFile = join(examples, example, "alerts.values.yaml");
      const values = parse(readFileSync(valuesFile, "utf8")) as {
        prometheusRule: { alerts: Record<string, { for?: string; severity?: string }> };
      };
      // The example's own rules, as chart values (generated from its rules.yaml).
      const ruleValues = join(examples, example, "rules.values.yaml");
      const own = existsSync(ruleValues);
      const objects = helmTemplate(tools, chart, {
        release: "example",
        valuesFiles: [minimalValues, valuesFile, ...(own ? [ruleValues] : [])],
        values: { prometheusRule: { enabled: true } },
      });
      const groups = (
        find(objects, "PrometheusRule").spec as { groups: Parameters<typeof renderRuleFile>[0] }
      ).groups;
      const rules = groups.flatMap((g) => g.rules);
      for (const [alert, tuning] of Object.entries(values.prometheusRule.alerts)) {
        const rendered = rules.filter((r) => "alert" in r && r.alert === alert);
        assert.ok(rendered.length > 0, `${example}: ${alert} rendered`);
        for (const rule of rendered) {
          // The condition alerts count their duration in the expression (from lastTransitionTime), without `for`.
          if (tuning.for && "for" in rule && rule.for !== undefined)
            assert.equal(rule.for, tuning.for, `${example}: ${alert} for`);
          else if (tuning.for)
            assert.ok(
              (rule as { expr: string }).expr.includes(`> ${seconds(tuning.for)})`),
              `${example}: ${alert} counts ${tuning.for} in its expression`,
            );
          if (tuning.severity)
            assert.equal((rule as { labels: Record<string, string> }).labels.severity, tuning.severity);
        }
      }
      const file = join(scratch, `${example}.yaml`);
      writeFileSync(file, renderRuleFile(groups));
      const checked = runPromtool(["check", "rules", "--lint=all", "--lint-fatal", file]);
      assert.equal(checked.status, 0, `${example}: ${checked.output}`);
      if (own) {
        // After the shipped groups, the example's as its rules.yaml has them; its unit tests pass on the render.
        const ownGroups = (
          parse(readFileSync(join(examples, example, "rules.yaml"), "utf8")) as { groups: unknown[] }
        ).groups;
        assert.deepEqual(groups.slice(-ownGroups.length), ownGroups, `${example}: additionalGroups rendered`);
        const dir = mkdtempSync(join(scratch, `${example}-`));
        writeFileSync(join(dir, "rules.yaml"), renderRuleFile(groups));
        copyFileSync(join(examples, example, "rules.test.yaml"), join(dir, "rules.test.yaml"));
        const tested = runPromtool(["test", "rules", "rules.test.yaml"], dir);
        assert.equal(tested.status, 0, `${example}: ${tested.output}`);
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

/**
 * The example alerts on values (cert-manager expiry and renewal, Cluster API replicas, CloudNativePG instances and
 * backups), each fed by its example's configuration, with the objects' own fields deciding independently of the
 * exporter which objects must alert.
 */
const valueAlerts: Record<string, (object: Placed, now: number) => boolean> = {
  CertificateExpiringSoon: (o, now) =>
    o.kind.kind === "Certificate" && timeOf(o.draft.status?.notAfter) - now < 14 * 86400,
  CertificateRenewalOverdue: (o, now) =>
    o.kind.kind === "Certificate" && now - timeOf(o.draft.status?.renewalTime) > 3600,
  MachineDeploymentReplicasNotReady: (o) =>
    o.kind.kind === "MachineDeployment" &&
    typeof o.draft.status?.readyReplicas === "number" &&
    typeof o.draft.spec?.replicas === "number" &&
    o.draft.status.readyReplicas < o.draft.spec.replicas,
  PostgresClusterInstancesNotReady: (o) =>
    o.kind.id === "cloudnative-pg/Cluster" &&
    typeof o.draft.status?.readyInstances === "number" &&
    typeof o.draft.status?.instances === "number" &&
    o.draft.status.readyInstances < o.draft.status.instances,
  PostgresClusterBackupTooOld: (o, now) =>
    o.kind.id === "cloudnative-pg/Cluster" && now - timeOf(o.draft.status?.lastSuccessfulBackup) > 26 * 3600,
};

/** Unix seconds of an RFC 3339 field; NaN (comparing false) when there is none. */
function timeOf(value: unknown): number {
  return typeof value === "string" ? Date.parse(value) / 1000 : Number.NaN;
}

test("the examples' value alerts fire in a real Prometheus on the exporter's series, exactly for the objects whose fields say so", {
  skip: unavailable,
}, async (t) => {
  const { plane } = testbed;
  const rest = plane.admin.rest;
  const now = Date.now() / 1000;
  const at = (seconds: number) => new Date((now + seconds) * 1000).toISOString().replace(/\.\d+Z$/, "Z");
  // Objects that must alert, beside the placed ones (whose certificates expire in 2030 and have no backup).
  const extra: Placed[] = [];
  const variant = async (id: string, scenario: string, status: Record<string, unknown>) => {
    const base = placed.find((p) => p.kind.id === id && p.draft.scenario === "healthy");
    assert.ok(base, `a healthy ${id}`);
    const draft = { ...base.draft, status: { ...base.draft.status, ...status } };
    const name = `${base.kind.kind.toLowerCase()}-${scenario}`;
    await placeDraft(rest, base.crd, namespace, name, draft);
    extra.push({ ...base, draft, name });
  };
  await variant("cert-manager/Certificate", "expiring", {
    notAfter: at(3 * 86400),
    renewalTime: at(-2 * 3600),
  });
  await variant("cloudnative-pg/Cluster", "stale-backup", { lastSuccessfulBackup: at(-30 * 3600) });
  await variant("cloudnative-pg/Cluster", "fresh-backup", { lastSuccessfulBackup: at(-3600) });

  const examplesWithValues = ["cert-manager", "cluster-api", "cloudnative-pg"];
  const configs = examplesWithValues.map(
    (e) => parse(readFileSync(join(examples, e, "config.yaml"), "utf8")) as { resources: unknown[] },
  );
  const exporter = await runExporter(plane.kubeconfigPath, {
    resources: configs.flatMap((c) => c.resources),
  });
  t.after(() => exporter.stop());
  await ready(exporter, "/readyz: the three examples' kinds listed");
  // The example rules as shipped, without their `for` (promtool's tests time those): the expressions decide here.
  const scratch = mkdtempSync(join(tmpdir(), "cr-example-alerts-"));
  t.after(() => rmSync(scratch, { recursive: true, force: true }));
  const ruleFiles = examplesWithValues.map((e) => {
    const rules = parse(readFileSync(join(examples, e, "rules.yaml"), "utf8")) as {
      groups: { rules: Record<string, unknown>[] }[];
    };
    for (const rule of rules.groups.flatMap((g) => g.rules)) delete rule.for;
    const file = join(scratch, `${e}.yaml`);
    writeFileSync(file, stringify(rules));
    return file;
  });
  const prometheus = await PrometheusServer.start({
    scrape: [{ job: "cr-status-exporter", targets: [new URL(exporter.exporter.url).host] }],
    ruleFiles,
  });
  t.after(() => prometheus.stop());

  const objects = [...placed, ...extra].filter((o) => o.namespace === namespace);
  const expected = Object.entries(valueAlerts)
    .flatMap(([alert, fires]) => objects.filter((o) => fires(o, now)).map((o) => `${alert} ${o.name}`))
    .sort();
  for (const alert of Object.keys(valueAlerts))
    assert.ok(
      expected.some((e) => e.startsWith(`${alert} `)),
      `${alert}: some object must fire it (${expected.join(", ")})`,
    );
  let firing: string[] = [];
  await eventually(
    "the value alerts firing for exactly the expected objects",
    async () => {
      firing = (await prometheus.alerts())
        .filter((a) => a.state === "firing" && a.labels.alertname && a.labels.alertname in valueAlerts)
        .map((a) => `${a.labels.alertname} ${a.labels.name}`)
        .sort();
      return JSON.stringify(firing) === JSON.stringify(expected);
    },
    60_000,
  ).catch((error) => {
    throw new Error(
      `${(error as Error).message}\nfiring: ${firing.join(", ")}\nexpected: ${expected.join(", ")}`,
    );
  });
  const unhealthy = (await prometheus.rules()).flatMap((g) => g.rules).filter((r) => r.health !== "ok");
  assert.deepEqual(unhealthy, [], "every example rule evaluates");
});
