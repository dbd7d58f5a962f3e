// Every object rendered by kustomize (cluster base, sidecar and sharded
// overlays) and by the Helm chart (minimal values, everything on, sidecar,
// sharded) is accepted by a
// real kube-apiserver with the prometheus-operator CRDs installed: server-side
// apply, dry run, strict field validation. The pods meet the restricted Pod
// Security Standard, and the embedded rules and dashboards arrive unchanged.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parse, stringify } from "yaml";
import { alertTuningComponent, renderAlertTuningPatch } from "../../scripts/alert-tuning.ts";
import { repositoryRoot, sourcePaths } from "../../scripts/deploy-sync.ts";
import { ControlPlane, installCrd } from "../cluster/index.ts";
import { DryRunApplier } from "../deploy/apply.ts";
import {
  describe,
  find,
  helmNamespace,
  helmSidecarNamespace,
  helmTemplate,
  type KubeObject,
  kubeVersion,
  minimalValues,
  parseObjects,
  type RenderedModes,
  renderAll,
} from "../deploy/render.ts";
import { prometheusOperatorCrds, resolveDeployTools } from "../deploy/tools.ts";

let plane: ControlPlane | undefined;
let rendered: RenderedModes;
let applier: DryRunApplier;

function admin(): ControlPlane["admin"] {
  if (!plane) throw new Error("the control plane is not started");
  return plane.admin;
}

before(async () => {
  const tools = resolveDeployTools();
  rendered = renderAll(tools);
  plane = await ControlPlane.start();
  const rest = plane.admin.rest;
  for (const crd of prometheusOperatorCrds(tools)) await installCrd(rest, crd);
  // Dry runs of namespaced objects need their namespace to exist for real.
  for (const name of ["cr-status-exporter", helmNamespace, helmSidecarNamespace]) {
    await rest.create("/api/v1/namespaces", { metadata: { name } });
  }
  await rest.create("/api/v1/namespaces", {
    metadata: { name: "psa-restricted", labels: { "pod-security.kubernetes.io/enforce": "restricted" } },
  });
  applier = new DryRunApplier(rest);
});

after(async () => {
  await plane?.stop();
  rendered?.cleanup();
});

async function applyAll(objects: KubeObject[]): Promise<string[]> {
  const failures: string[] = [];
  for (const object of objects) {
    const result = await applier.apply(object);
    if (result.status < 200 || result.status >= 300) {
      failures.push(`${describe([object])[0]}: ${result.status} ${result.message}`);
    }
  }
  return failures;
}

const modes = [
  ["kustomize base (cluster mode)", () => rendered.kustomizeBase],
  ["kustomize sidecar overlay", () => rendered.kustomizeSidecar],
  ["helm, ci/values-minimal.yaml", () => rendered.helmMinimal],
  ["helm, ci/values-all.yaml", () => rendered.helmAll],
  ["helm, ci/values-sidecar.yaml", () => rendered.helmSidecar],
  ["kustomize sharded overlay", () => rendered.kustomizeSharded],
  ["helm, ci/values-sharded.yaml", () => rendered.helmSharded],
] as const;

for (const [title, objects] of modes) {
  test(`${title}: every rendered object is accepted (server-side apply, dry run, strict)`, async (t) => {
    const list = objects();
    t.diagnostic(`${list.length} objects: ${describe(list).join(", ")}`);
    assert.ok(list.length > 0);
    assert.deepEqual(await applyAll(list), []);
  });
}

test("the dry run rejects what the apiserver would reject (the check can fail)", async () => {
  const monitor = structuredClone(find(rendered.kustomizeBase, "ServiceMonitor"));
  (monitor.spec as { endpoints: Record<string, unknown>[] }).endpoints[0] = {
    port: "metrics",
    honourLabels: true,
  };
  const result = await applier.apply(monitor);
  assert.ok(result.status >= 400, `expected a rejection, got ${result.status}`);
  assert.match(result.message ?? "", /honourLabels: field not declared in schema/);
});

function podsOf(objects: KubeObject[]): { name: string; spec: unknown }[] {
  return objects
    .filter((o) => o.kind === "Deployment" || o.kind === "StatefulSet")
    .map((o) => ({
      name: o.metadata.name,
      spec: (o.spec as { template: { spec: unknown } }).template.spec,
    }));
}

test("every rendered pod is admitted under the restricted Pod Security Standard", async () => {
  const rest = admin().rest;
  const pods = [...modes.flatMap(([, objects]) => podsOf(objects()))];
  assert.ok(pods.length >= 4, `expected Deployments in cluster and sidecar modes, got ${pods.length}`);
  for (const pod of pods) {
    const response = await rest.raw<{ message?: string }>(
      "POST",
      "/api/v1/namespaces/psa-restricted/pods",
      { apiVersion: "v1", kind: "Pod", metadata: { name: pod.name }, spec: pod.spec },
      { query: { dryRun: "All" } },
    );
    assert.equal(response.status, 201, `${pod.name}: ${response.body?.message}`);
  }
  // Control: the same pod without its securityContext is refused.
  const first = pods[0];
  assert.ok(first);
  const spec = structuredClone(first.spec) as { containers: Record<string, unknown>[] };
  for (const container of spec.containers) delete container.securityContext;
  const refused = await rest.raw<{ message?: string }>(
    "POST",
    "/api/v1/namespaces/psa-restricted/pods",
    { apiVersion: "v1", kind: "Pod", metadata: { name: first.name }, spec },
    { query: { dryRun: "All" } },
  );
  assert.equal(refused.status, 403);
  assert.match(refused.body?.message ?? "", /violates PodSecurity "restricted/);
});

test("the rules reach the PrometheusRules unchanged, {{ $labels }} templates included; helm's are tuned by values", () => {
  const ruleFile = readFileSync(join(rendered.sources, sourcePaths.ruleFile), "utf8");
  const prometheusRule = parse(readFileSync(join(rendered.sources, sourcePaths.prometheusRule), "utf8")) as {
    spec: unknown;
  };
  assert.match(ruleFile, /\{\{ \$labels\./);
  assert.deepEqual(find(rendered.kustomizeBase, "PrometheusRule").spec, prometheusRule.spec);
  assert.deepEqual(find(rendered.kustomizeSidecar, "PrometheusRule").spec, prometheusRule.spec);
  // ci/values-sidecar.yaml keeps the default tuning: the shipped rule file exactly.
  assert.deepEqual(find(rendered.helmSidecar, "PrometheusRule").spec, parse(ruleFile));
  // ci/values-all.yaml tunes: NotReady pages after 30m, flapping is off, every alert carries team=platform.
  const fromHelm = find(rendered.helmAll, "PrometheusRule");
  assert.equal(fromHelm.metadata.labels?.release, "kube-prometheus-stack");
  const alerts = (
    fromHelm.spec as {
      groups: { rules: { alert?: string; expr: string; for?: string; labels?: Record<string, string> }[] }[];
    }
  ).groups
    .flatMap((g) => g.rules)
    .filter((r) => r.alert);
  // The condition alerts count their duration in the expression (30m: 1800 s), and have no `for`.
  assert.deepEqual(
    alerts
      .filter((r) => r.alert === "CustomResourceNotReady")
      .map((r) => [r.for, /\) > (\d+)\)/.exec(r.expr)?.[1], r.labels?.severity]),
    [[undefined, "1800", "critical"]],
  );
  assert.equal(
    alerts.find((r) => r.alert === "CustomResourceReadyFlapping"),
    undefined,
  );
  assert.ok(alerts.every((r) => r.labels?.team === "platform"));
});

test("every dashboard is one ConfigMap labelled for Grafana's sidecar, its JSON unchanged", () => {
  const directory = join(rendered.sources, sourcePaths.dashboards);
  const files = readdirSync(directory).filter((f) => f.endsWith(".json"));
  assert.ok(files.length > 0);
  for (const objects of [rendered.kustomizeBase, rendered.kustomizeSidecar, rendered.helmAll]) {
    const dashboards = objects.filter((o) => o.kind === "ConfigMap" && o.metadata.labels?.grafana_dashboard);
    assert.equal(dashboards.length, files.length);
    for (const file of files) {
      const source = readFileSync(join(directory, file), "utf8");
      const configMap = dashboards.find((d) => (d.data as Record<string, string>)[file] !== undefined);
      assert.ok(configMap, `no ConfigMap holds ${file}`);
      assert.equal(configMap.metadata.labels?.grafana_dashboard, "1");
      assert.equal(configMap.metadata.labels?.["kustomize.toolkit.fluxcd.io/substitute"], "disabled");
      assert.deepEqual(
        JSON.parse((configMap.data as Record<string, string>)[file] ?? ""),
        JSON.parse(source),
      );
    }
  }
});

test("ServiceMonitors: job label from app.kubernetes.io/name=cr-status-exporter, honorLabels, port metrics", () => {
  for (const objects of [
    rendered.kustomizeBase,
    rendered.kustomizeSidecar,
    rendered.helmAll,
    rendered.helmSidecar,
  ]) {
    const monitor = find(objects, "ServiceMonitor");
    const spec = monitor.spec as {
      jobLabel: string;
      selector: { matchLabels: Record<string, string> };
      endpoints: { port: string; honorLabels: boolean }[];
    };
    assert.equal(spec.jobLabel, "app.kubernetes.io/name");
    assert.deepEqual(
      spec.endpoints.map((e) => [e.port, e.honorLabels]),
      [["metrics", true]],
    );
    // The Service it selects carries the job label and names its port metrics.
    const service = objects.find(
      (o) =>
        o.kind === "Service" &&
        Object.entries(spec.selector.matchLabels).every(([k, v]) => o.metadata.labels?.[k] === v),
    );
    assert.ok(service, `no Service matches ${JSON.stringify(spec.selector.matchLabels)}`);
    assert.equal(service.metadata.labels?.["app.kubernetes.io/name"], "cr-status-exporter");
    assert.ok((service.spec as { ports: { name: string }[] }).ports.some((p) => p.name === "metrics"));
  }
});

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  nonResourceURLs?: string[];
  verbs: string[];
}

function grants(objects: KubeObject[]): string[] {
  return objects
    .filter((o) => o.kind === "ClusterRole" || o.kind === "Role")
    .flatMap((o) => o.rules as Rule[])
    .flatMap((r) => [
      ...(r.apiGroups ?? []).flatMap((g) =>
        (r.resources ?? []).map((res) => `${g}/${res}:${r.verbs.join(",")}`),
      ),
      ...(r.nonResourceURLs ?? []).map((url) => `${url}:${r.verbs.join(",")}`),
    ])
    .sort();
}

test("helm derives its RBAC from config.resources: exactly those, list and watch, CRDs only with discovery, events unless warningEvents is off", () => {
  assert.deepEqual(grants(rendered.helmMinimal), [
    "apiextensions.k8s.io/customresourcedefinitions:list,watch",
    "events.k8s.io/events:list,watch",
    "example.com/widgets:list,watch",
  ]);
  const chart = join(rendered.directory, "deploy", "helm", "cr-status-exporter");
  assert.deepEqual(
    grants(helmTemplate(resolveDeployTools(), chart, { set: ["config.warningEvents.enabled=false"] })),
    ["apiextensions.k8s.io/customresourcedefinitions:list,watch", "example.com/widgets:list,watch"],
  );
  assert.deepEqual(grants(rendered.helmAll), [
    // web.auth: kubernetes: the scraper identity the ServiceMonitor sends may get /metrics, nothing else.
    "/metrics:get",
    "apiextensions.k8s.io/customresourcedefinitions:list,watch",
    // tracing.lease: create the Lease, then get and update that one only.
    "coordination.k8s.io/leases:create",
    "coordination.k8s.io/leases:get,update",
    "events.k8s.io/events:list,watch",
    "example.com/gadgets:list,watch",
    "example.com/widgets:list,watch",
  ]);
  const leaseRole = find(rendered.helmAll, "Role", "cr-status-exporter-lease");
  assert.deepEqual((leaseRole.rules as { resourceNames?: string[] }[])[1]?.resourceNames, [
    "cr-status-exporter",
  ]);
  // web.auth: kubernetes: the exporter may create TokenReviews and SubjectAccessReviews.
  const delegator = find(rendered.helmAll, "ClusterRoleBinding", "cr-status-exporter-auth-delegator");
  assert.deepEqual(delegator.roleRef, {
    apiGroup: "rbac.authorization.k8s.io",
    kind: "ClusterRole",
    name: "system:auth-delegator",
  });
  assert.deepEqual(grants(rendered.helmSidecar), [
    "events.k8s.io/events:list,watch",
    "example.com/widgets:list,watch",
  ]);
  const role = find(rendered.helmSidecar, "Role");
  const binding = find(rendered.helmSidecar, "RoleBinding");
  assert.equal(role.metadata.namespace, helmSidecarNamespace);
  assert.deepEqual(binding.subjects, [
    { kind: "ServiceAccount", name: "example-operator-controller-manager", namespace: helmSidecarNamespace },
  ]);
  const config = parse(
    (find(rendered.helmSidecar, "ConfigMap", "cr-status-exporter-config").data as Record<string, string>)[
      "config.yaml"
    ] ?? "",
  ) as { resources: { namespaces: string[] }[] };
  assert.deepEqual(config.resources[0]?.namespaces, [helmSidecarNamespace]);
});

test("helm refuses what it cannot grant exactly, naming the value", () => {
  const chart = join(rendered.directory, "deploy", "helm", "cr-status-exporter");
  const helm = resolveDeployTools().helm;
  const attempt = (...sets: string[]): string => {
    try {
      execFileSync(
        helm,
        ["template", "x", chart, "--kube-version", kubeVersion, ...sets.flatMap((s) => ["--set", s])],
        {
          stdio: "pipe",
        },
      );
      return "rendered";
    } catch (error) {
      return String((error as { stderr?: Buffer }).stderr);
    }
  };
  assert.match(
    attempt("config.resources[0].groups[0]=*.example.com"),
    /config\.resources\[0\]\.groups: "\*\.example\.com" is a glob.*rbac\.rules/,
  );
  assert.match(
    attempt("config.resources[0].group=example.com", "config.resources[0].kind=Widget"),
    /config\.resources\[0\]: give `resource`/,
  );
  const widgets = ["config.resources[0].group=example.com", "config.resources[0].resource=widgets"];
  assert.match(
    attempt(...widgets, "rbac.scope=namespace"),
    /config\.crdDiscovery must be false with namespaced RBAC/,
  );
  assert.match(
    attempt(...widgets, "mode=sidecar", "config.crdDiscovery=false"),
    /sidecar\.operator\.serviceAccountName is required/,
  );
  assert.equal(
    attempt(
      "config.resources[0].groups[0]=*.example.com",
      "rbac.rules[0].apiGroups[0]=*",
      "rbac.rules[0].resources[0]=*",
      "rbac.rules[0].verbs[0]=list",
    ),
    "rendered",
  );
});

function helmInstall(...args: string[]): { status: number; output: string } {
  const chart = join(rendered.directory, "deploy", "helm", "cr-status-exporter");
  try {
    const output = execFileSync(
      resolveDeployTools().helm,
      [
        "install",
        "cr-status-exporter",
        chart,
        "--dry-run=server",
        "--kubeconfig",
        admin().kubeconfigPath,
        ...args,
      ],
      { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
    );
    return { status: 0, output };
  } catch (error) {
    const e = error as { status: number; stdout: string; stderr: string };
    return { status: e.status, output: `${e.stdout}${e.stderr}` };
  }
}

test("helm install against the testbed: no config.resources or a misspelt value fails; NOTES warn while no release label is set", () => {
  const chart = join(rendered.directory, "deploy", "helm", "cr-status-exporter");
  const clusterRelease = ["--namespace", helmNamespace, "--values", join(chart, minimalValues)];
  const nothingToWatch = helmInstall("--namespace", helmNamespace);
  assert.notEqual(nothingToWatch.status, 0, "installed without config.resources");
  assert.match(nothingToWatch.output, /config\.resources: required/);
  const typo = helmInstall(...clusterRelease, "--set", "serviceMonitor.enable=true");
  assert.notEqual(typo.status, 0);
  assert.match(typo.output, /at '\/serviceMonitor': additional properties 'enable' not allowed/);
  const unlabelled = helmInstall(...clusterRelease, "--set", "serviceMonitor.enabled=true");
  assert.equal(unlabelled.status, 0, unlabelled.output);
  assert.match(unlabelled.output, /WARNING: no `release` label on the ServiceMonitor\. /);
  const labelled = helmInstall(
    ...clusterRelease,
    "--set",
    "serviceMonitor.enabled=true",
    "--set",
    "prometheusRule.enabled=true",
    "--set",
    "releaseLabel=kube-prometheus-stack",
  );
  assert.equal(labelled.status, 0, labelled.output);
  assert.doesNotMatch(labelled.output, /WARNING/);
  assert.match(labelled.output, /The alerts select job="cr-status-exporter"/);
  const recordedPanels = /NOTE: the overview dashboard reads the recording rules the PrometheusRule ships/;
  const dashboardsOnly = helmInstall(...clusterRelease, "--set", "dashboards.enabled=true");
  assert.equal(dashboardsOnly.status, 0, dashboardsOnly.output);
  assert.match(dashboardsOnly.output, recordedPanels);
  const withRules = helmInstall(
    ...clusterRelease,
    "--set",
    "dashboards.enabled=true",
    "--set",
    "prometheusRule.enabled=true",
  );
  assert.doesNotMatch(withRules.output, recordedPanels);
});

test("sidecar mode: what NOTES.txt tells to add makes a pod the apiserver admits (restricted); no readiness probe", async () => {
  const install = helmInstall(
    "--namespace",
    helmSidecarNamespace,
    "--values",
    join(rendered.directory, "deploy", "helm", "cr-status-exporter", "ci", "values-sidecar.yaml"),
  );
  assert.equal(install.status, 0, install.output);
  const notes = install.output.slice(install.output.indexOf("\nNOTES:\n"));
  const snippet = /\n(spec:\n[\s\S]*?)\n\n/.exec(notes)?.[1];
  assert.ok(snippet, `no pod spec snippet in the notes:\n${notes}`);
  const added = parse(snippet) as {
    spec: { template: { spec: { initContainers: Record<string, unknown>[]; volumes: unknown[] } } };
  };
  const [sidecar] = added.spec.template.spec.initContainers;
  assert.ok(sidecar);
  assert.equal(sidecar.restartPolicy, "Always");
  assert.equal(
    sidecar.readinessProbe,
    undefined,
    "a native sidecar's readiness would gate the operator's pod",
  );
  assert.equal((sidecar.livenessProbe as { httpGet: { path: string } }).httpGet.path, "/healthz");
  const sizing = readFileSync(join(repositoryRoot, "docs", "sizing.md"), "utf8");
  const row = /^\| sidecar \|\s*(\S+) \|\s*(\S+) \|\s*(\S+) \|$/m.exec(sizing);
  assert.ok(row, "docs/sizing.md has the sidecar row");
  assert.deepEqual(sidecar.resources, {
    requests: { cpu: row[1], memory: row[2] },
    limits: { memory: row[3] },
  });
  // The stand-in operator of the kustomize overlay, with what the notes say to add.
  const operator = find(rendered.kustomizeSidecar, "Deployment", "example-operator-controller-manager");
  const podSpec = structuredClone(
    (operator.spec as { template: { spec: Record<string, unknown> } }).template.spec,
  );
  const manager = (podSpec.containers as Record<string, unknown>[])[0];
  assert.ok(manager);
  podSpec.initContainers = [sidecar];
  podSpec.volumes = added.spec.template.spec.volumes;
  manager.env = [{ name: "KUBECONFIG", value: "/var/run/cr-status-exporter/kubeconfig" }];
  manager.volumeMounts = [
    { name: "cr-status-exporter-api-proxy", mountPath: "/var/run/cr-status-exporter", readOnly: true },
  ];
  const response = await admin().rest.raw<{ message?: string }>(
    "POST",
    "/api/v1/namespaces/psa-restricted/pods",
    { apiVersion: "v1", kind: "Pod", metadata: { name: "operator-with-sidecar" }, spec: podSpec },
    { query: { dryRun: "All" } },
  );
  assert.equal(response.status, 201, response.body?.message);
});

test("kustomize: the alert-tuning component gives the base the chart's rules for its values, and the apiserver takes them", async () => {
  const tools = resolveDeployTools();
  const component = join(rendered.directory, alertTuningComponent);
  writeFileSync(
    join(component, "values.yaml"),
    stringify({
      prometheusRule: {
        job: "cr-status-exporter",
        additionalRuleLabels: { team: "platform" },
        alerts: { CustomResourceNotReady: { for: "30m" }, CustomResourceReadyFlapping: { enabled: false } },
      },
    }),
  );
  writeFileSync(
    join(component, "prometheusrule-patch.yaml"),
    renderAlertTuningPatch(tools.helm, join(component, "values.yaml")),
  );
  const overlay = join(rendered.directory, "tuned-overlay");
  mkdirSync(overlay);
  writeFileSync(
    join(overlay, "kustomization.yaml"),
    stringify({
      resources: ["../deploy/kustomize/base"],
      components: ["../deploy/kustomize/components/alert-tuning"],
    }),
  );
  const objects = parseObjects(execFileSync(tools.kustomize, ["build", overlay], { encoding: "utf8" }));
  const rule = find(objects, "PrometheusRule", "cr-status-exporter");
  assert.equal(rule.metadata.namespace, "cr-status-exporter", "the base's namespace stays");
  const alerts = (
    rule.spec as {
      groups: {
        rules: {
          alert?: string;
          expr: string;
          for?: string;
          labels?: Record<string, string>;
          annotations?: Record<string, string>;
        }[];
      }[];
    }
  ).groups
    .flatMap((g) => g.rules)
    .filter((r) => r.alert);
  assert.deepEqual(
    alerts
      .filter((r) => r.alert === "CustomResourceNotReady")
      .map((r) => [
        r.for,
        /\) > (\d+)\)/.exec(r.expr)?.[1],
        /for more than (\w+)\{\{/.exec(r.annotations?.description ?? "")?.[1],
      ]),
    [[undefined, "1800", "30m"]],
  );
  assert.equal(
    alerts.find((r) => r.alert === "CustomResourceReadyFlapping"),
    undefined,
  );
  assert.ok(alerts.every((r) => r.labels?.team === "platform"));
  assert.deepEqual(await applyAll([rule]), []);
});
