// The Helm chart with the real helm and promtool (no cluster needed; the
// apiserver checks are in deploy-manifests.test.ts): `helm lint --strict` on
// the default, all-on and sidecar values; the schema refuses misspelt keys by
// path; alert tuning from values changes the rendered PrometheusRule, which
// passes `promtool check rules` and `promtool test rules`; every rendered
// configuration passes the exporter's own validation.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { parse, stringify } from "yaml";
import {
  ALL_ALERT_OPTIONS,
  type AlertingRule,
  generateRuleGroups,
  type RuleGroup,
  renderRuleFile,
} from "../../alerts/src/index.ts";
import { alertTuningComponent, renderAlertTuningPatch } from "../../scripts/alert-tuning.ts";
import { repositoryRoot, sourcePaths } from "../../scripts/deploy-sync.ts";
import { parseConfigText } from "../../src/config/load.ts";
import { resolveOtlpMetrics } from "../../src/otlp-metrics/settings.ts";
import { parseWebConfig } from "../../src/server/web-config.ts";
import { resolveTracingTarget } from "../../src/tracing/otel-env.ts";
import { find, type HelmRender, helmTemplate, type KubeObject, minimalValues } from "../deploy/render.ts";
import { resolveDeployTools } from "../deploy/tools.ts";
import { runPromtool } from "../prometheus/binaries.ts";

const tools = resolveDeployTools();
const chart = join(repositoryRoot, "deploy", "helm", "cr-status-exporter");
/** The least a release needs: the chart refuses one without config.resources. */
const minimal = ["--values", join(chart, minimalValues)];
const scratch = mkdtempSync(join(tmpdir(), "cr-chart-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

function helm(args: string[]): { status: number; output: string } {
  try {
    return {
      status: 0,
      output: execFileSync(tools.helm, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }),
    };
  } catch (error) {
    const e = error as { status: number; stdout: string; stderr: string };
    return { status: e.status, output: `${e.stdout}${e.stderr}` };
  }
}

function rulesOf(render: HelmRender): RuleGroup[] {
  const objects = helmTemplate(tools, chart, {
    ...render,
    flags: ["--show-only", "templates/prometheusrule.yaml"],
  });
  return (find(objects, "PrometheusRule").spec as { groups: RuleGroup[] }).groups;
}

function alert(groups: RuleGroup[], name: string): AlertingRule | undefined {
  return groups.flatMap((g) => g.rules).find((r): r is AlertingRule => "alert" in r && r.alert === name);
}

function writeRules(name: string, groups: RuleGroup[]): string {
  const path = join(scratch, name);
  writeFileSync(path, renderRuleFile(groups));
  return path;
}

test("helm lint --strict passes on the minimal, all-on and sidecar values", () => {
  for (const values of [
    minimal,
    ["--values", join(chart, "ci", "values-all.yaml")],
    ["--values", join(chart, "ci", "values-sidecar.yaml")],
  ]) {
    const result = helm(["lint", "--strict", chart, ...values]);
    assert.equal(result.status, 0, result.output);
    assert.match(result.output, /1 chart\(s\) linted, 0 chart\(s\) failed/);
  }
});

test("a release without config.resources is refused with an example, unless rbac.rules or rbac.create=false grant it", () => {
  // Without resources the exporter watches every CRD: the chart cannot derive
  // that grant, and a release that cannot list what it watches is silently empty.
  const refused = helm(["template", "x", chart]);
  assert.notEqual(refused.status, 0, "template accepted a release without config.resources");
  assert.match(refused.output, /config\.resources: required/);
  assert.match(refused.output, /--set config\.resources\[0\]\.group=cert-manager\.io/);
  assert.match(refused.output, /rbac\.rules/);
  // (helm lint renders in its lint mode, where a template's fail is only logged: lint runs with ci/ values.)
  const everyCrd = [
    "--set",
    "rbac.rules[0].apiGroups[0]=*",
    "--set",
    "rbac.rules[0].resources[0]=*",
    "--set",
    "rbac.rules[0].verbs[0]=list",
    "--set",
    "rbac.rules[0].verbs[1]=watch",
  ];
  const granted = helm(["template", "x", chart, ...everyCrd]);
  assert.equal(granted.status, 0, granted.output);
  assert.match(granted.output, /kind: ClusterRole\b/);
  const unmanaged = helm(["template", "x", chart, "--set", "rbac.create=false"]);
  assert.equal(unmanaged.status, 0, unmanaged.output);
  assert.doesNotMatch(unmanaged.output, /kind: ClusterRole\b/);
});

test("a misspelt value fails lint and template, naming its path", () => {
  const typoFile = join(scratch, "typo.yaml");
  writeFileSync(
    typoFile,
    stringify({ prometheusRule: { alerts: { CustomResourceNotReady: { fro: "30m" } } } }),
  );
  const cases: [string[], RegExp][] = [
    [
      ["--set", "serviceMonitor.enable=true"],
      /at '\/serviceMonitor': additional properties 'enable' not allowed/,
    ],
    [
      ["--values", typoFile],
      /at '\/prometheusRule\/alerts\/CustomResourceNotReady': additional properties 'fro' not allowed/,
    ],
    [
      ["--set", "prometheusRule.alerts.CustomResourceNotReadyy.for=1m"],
      /additional properties 'CustomResourceNotReadyy' not allowed/,
    ],
    [["--set", "web.tls.clientAuthType=Always"], /at '\/web\/tls\/clientAuthType': value must be one of/],
    [["--set", "image.digest=latest"], /at '\/image\/digest'/],
    // config: is checked against the exporter's own schema.
    [["--set", "config.logLevle=debug"], /at '\/config': additional properties 'logLevle' not allowed/],
    [["--set", "config.logLevel=loud"], /at '\/config\/logLevel'/],
    [["--set", "config.resources[0].maxSeries=-1"], /at '\/config\/resources\/0/],
  ];
  for (const [args, message] of cases) {
    const lint = helm(["lint", "--strict", chart, ...minimal, ...args]);
    assert.notEqual(lint.status, 0, `lint accepted ${args.join(" ")}`);
    assert.match(lint.output, message);
    const template = helm(["template", "x", chart, "--kube-version", "1.36.3", ...minimal, ...args]);
    assert.notEqual(template.status, 0);
    assert.match(template.output, message);
  }
  // Combinations the schema cannot express fail with the values named.
  assert.match(
    helm(["template", "x", chart, "--kube-version", "1.36.3", ...minimal, "--set", "web.auth=kubernetes"])
      .output,
    /web\.auth: kubernetes needs web\.tls\.enabled: true/,
  );
  assert.match(
    helm(["template", "x", chart, "--kube-version", "1.36.3", ...minimal, "--set", "config.webConfigFile=/x"])
      .output,
    /config\.webConfigFile: set it through the chart's values/,
  );
  for (const loopback of ["127.0.0.1:9184", "localhost:9184", "[::1]:9184"]) {
    assert.match(
      helm(["template", "x", chart, ...minimal, "--set", `config.listen=${loopback}`]).output,
      /config\.listen: .* is a loopback address: the Service, Prometheus and the kubelet's probes cannot reach it/,
    );
  }
  assert.equal(helm(["template", "x", chart, ...minimal, "--set", "config.listen=0.0.0.0:9184"]).status, 0);
});

test("only sidecar mode needs Kubernetes >= 1.29 (a native sidecar): cluster mode renders without --kube-version", () => {
  const sidecar = ["--values", join(chart, "ci", "values-sidecar.yaml")];
  const old = helm(["template", "x", chart, "--kube-version", "1.28.9", ...sidecar]);
  assert.notEqual(old.status, 0);
  assert.match(old.output, /mode: sidecar .* needs Kubernetes >= 1\.29, not v1\.28\.9/);
  assert.equal(helm(["template", "x", chart, "--kube-version", "1.29.0", ...sidecar]).status, 0);
  for (const args of [["--kube-version", "1.28.9"], []]) {
    const cluster = helm(["template", "x", chart, ...minimal, ...args]);
    assert.equal(cluster.status, 0, cluster.output);
  }
});

test("an umbrella chart's values: enabled is allowed, global.imageRegistry and global.imagePullSecrets are honoured", () => {
  const lint = helm(["lint", "--strict", chart, ...minimal, "--set", "enabled=true"]);
  assert.equal(lint.status, 0, lint.output);
  const pod = (values: Record<string, unknown>) =>
    (
      find(helmTemplate(tools, chart, { values }), "Deployment").spec as {
        template: { spec: { containers: { image: string }[]; imagePullSecrets?: { name: string }[] } };
      }
    ).template.spec;
  const global = pod({
    global: { imageRegistry: "mirror.example:5000", imagePullSecrets: ["mirror-pull", { name: "other" }] },
    imagePullSecrets: ["own"],
  });
  assert.match(
    global.containers[0]?.image ?? "",
    /^mirror\.example:5000\/cr-status-exporter\/cr-status-exporter:/,
  );
  assert.deepEqual(
    global.imagePullSecrets?.map((s) => s.name),
    ["mirror-pull", "other", "own"],
  );
  const plain = pod({});
  assert.match(plain.containers[0]?.image ?? "", /^ghcr\.io\/cr-status-exporter\/cr-status-exporter:/);
  assert.equal(plain.imagePullSecrets, undefined);
});

test("with default alert values the PrometheusRule holds exactly the shipped rule file", () => {
  const shipped = parse(readFileSync(join(repositoryRoot, sourcePaths.ruleFile), "utf8")) as {
    groups: RuleGroup[];
  };
  assert.deepEqual(rulesOf({ set: ["prometheusRule.enabled=true"] }), shipped.groups);
});

test("alert tuning from values changes the rendered rules: off, for, severity, labels, thresholds, job", () => {
  const defaults = rulesOf({ set: ["prometheusRule.enabled=true"] });
  const tuned = rulesOf({
    release: "platform",
    values: {
      nameOverride: "crs",
      prometheusRule: {
        enabled: true,
        additionalRuleLabels: { team: "platform" },
        keepFiringFor: "",
        rateWindow: "5m",
        thresholds: { terminatingSeconds: 3600, writesPerSecond: 0.25, flapWindow: "1h" },
        alerts: {
          CustomResourceNotReady: { for: "30m", severity: "critical", labels: { pager: "db-team" } },
          CustomResourceReadyFlapping: { enabled: false },
          CRStatusExporterSeriesDropped: { enabled: false },
        },
      },
    },
  });
  const notReady = alert(tuned, "CustomResourceNotReady");
  assert.ok(notReady);
  // The condition alerts count their duration in the expression, from lastTransitionTime: 30m is 1800 s there.
  assert.equal(notReady.for, undefined);
  assert.match(notReady.expr, /\) > 1800\)/);
  assert.deepEqual(notReady.labels, { severity: "critical", team: "platform", pager: "db-team" });
  assert.equal(notReady.keep_firing_for, undefined, "keepFiringFor: '' omits it");
  assert.match(notReady.annotations.description, /for more than 30m\{\{/);
  assert.equal(alert(tuned, "CustomResourceReadyFlapping"), undefined);
  assert.equal(alert(tuned, "CRStatusExporterSeriesDropped"), undefined);
  assert.match(alert(tuned, "CustomResourceStuckTerminating")?.expr ?? "", /> 3600$/);
  assert.match(alert(tuned, "CustomResourceStatusWriteStorm")?.expr ?? "", /\[5m\].*> 0\.25$/);
  // Every selector follows the job prometheus-operator gives the renamed chart.
  const exprs = tuned.flatMap((g) => g.rules.map((r) => r.expr));
  assert.ok(exprs.every((e) => !e.includes('job="cr-status-exporter"')));
  assert.ok(exprs.filter((e) => e.includes('job="crs"')).length >= 15);
  assert.equal(alert(tuned, "CustomResourceStalled")?.labels.team, "platform");
  // Untouched alerts stay as shipped (apart from the job and the routing label).
  const stalled = alert(defaults, "CustomResourceStalled");
  assert.equal(alert(tuned, "CustomResourceStalled")?.for, stalled?.for);
  assert.match(alert(tuned, "CustomResourceStalled")?.expr ?? "", /\) > 300\)/);
  const path = writeRules("tuned.yaml", tuned);
  const check = runPromtool(["check", "rules", "--lint=all", "--lint-fatal", path]);
  assert.equal(check.status, 0, check.output);
  // The job can also be named outright, e.g. for a scrape configuration of one's own.
  const named = rulesOf({ set: ["prometheusRule.enabled=true", "prometheusRule.job=kube-system/crs"] })
    .flatMap((g) => g.rules)
    .map((r) => r.expr);
  assert.deepEqual(
    [...new Set(named.flatMap((e) => [...e.matchAll(/job="([^"]+)"/g)].map((m) => m[1])))],
    ["kube-system/crs"],
  );
});

test("includeSuspended from values counts suspended objects in the Not-Ready rules, as the TypeScript option does", () => {
  const alerts = {
    CustomResourceHeartbeatStale: { enabled: true },
    CustomResourceConditionStale: { enabled: true },
  };
  const fromChart = rulesOf({
    values: { prometheusRule: { enabled: true, includeSuspended: true, alerts } },
  });
  assert.deepEqual(fromChart, generateRuleGroups({ ...ALL_ALERT_OPTIONS, includeSuspended: true }));
  const exprs = fromChart.flatMap((g) => g.rules.map((r) => r.expr));
  assert.deepEqual(
    exprs.filter((e) => e.includes("cr_suspended")),
    [],
    "no rule leaves suspended objects out",
  );
  const byDefault = rulesOf({ values: { prometheusRule: { enabled: true, alerts } } });
  const leavingOut = byDefault.flatMap((g) => g.rules.filter((r) => r.expr.includes("cr_suspended")));
  assert.deepEqual(
    leavingOut.map((r) => ("alert" in r ? r.alert : r.record)),
    [
      "namespace_group_kind_status:cr_condition:count_readiness",
      "CustomResourceNotReady",
      "CustomResourceReadyUnknown",
      "CustomResourceFailed",
    ],
  );
  const path = writeRules("suspended.yaml", fromChart);
  const check = runPromtool(["check", "rules", "--lint=all", "--lint-fatal", path]);
  assert.equal(check.status, 0, check.output);
});

test("the family alerts and the kind/namespace scope from values render what the TypeScript options generate", () => {
  const scope = { excludeNamespaces: "kube-.*", kinds: "Widget|Gadget" };
  const notReadyScope = { kinds: "Certificate", namespaces: "team-a" };
  const fromChart = rulesOf({
    values: {
      prometheusRule: {
        enabled: true,
        scope,
        alerts: {
          CustomResourceNotReady: { scope: notReadyScope },
          CustomResourceHeartbeatStale: { enabled: true },
          CustomResourceConditionStale: { enabled: true },
        },
      },
    },
  });
  const fromOptions = generateRuleGroups({
    ...ALL_ALERT_OPTIONS,
    scope,
    alertScopes: { CustomResourceNotReady: notReadyScope },
  });
  assert.deepEqual(fromChart, fromOptions);
  assert.match(
    alert(fromChart, "CustomResourceHeartbeatStale")?.expr ?? "",
    /namespace!~"kube-\.\*"\}\) > 600$/,
  );
  // A misspelt scope field is refused by the schema, with its path.
  const misspelt = helm([
    "template",
    "x",
    chart,
    "--kube-version",
    "1.36.3",
    ...minimal,
    "--set",
    "prometheusRule.alerts.CustomResourceNotReady.scope.kind=X",
  ]);
  assert.notEqual(misspelt.status, 0);
  assert.match(misspelt.output, /CustomResourceNotReady\/scope': additional properties 'kind' not allowed/);
});

test("dashboards.multiCluster ships the multi-cluster dashboards: the cluster picker shown, links carrying each row's cluster", () => {
  const variant = (multiCluster: boolean) => {
    const objects = helmTemplate(tools, chart, {
      set: ["dashboards.enabled=true", `dashboards.multiCluster=${multiCluster}`],
      flags: ["--show-only", "templates/dashboards.yaml"],
    });
    const overview = objects.find((o) => o.metadata.name.endsWith("-dashboard-overview"));
    assert.ok(overview, "the overview's ConfigMap");
    const json = (overview.data as Record<string, string>)["cr-status-overview.json"] ?? "";
    const dashboard = JSON.parse(json) as { templating: { list: { name: string; hide?: number }[] } };
    return { hide: dashboard.templating.list.find((v) => v.name === "cluster")?.hide, json };
  };
  const single = variant(false);
  const multi = variant(true);
  assert.equal(single.hide, 2);
  assert.equal(multi.hide, 0);
  // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's data link syntax
  const rowCluster = "var-cluster=${__data.fields.cluster}";
  assert.ok(multi.json.includes(rowCluster));
  assert.ok(!single.json.includes(rowCluster));
});

test("promtool test rules passes on the rendered rules: the shipped tests, and the tuned alert's timing", () => {
  // The shipped unit tests (alerts/tests) against the chart's default rendering, with the alerts on
  // families that must be configured or opted in (off by default) switched on for their tests.
  const rendered = writeRules(
    "cr-status-exporter.rules.yaml",
    rulesOf({
      set: [
        "prometheusRule.enabled=true",
        "prometheusRule.alerts.CustomResourceHeartbeatStale.enabled=true",
        "prometheusRule.alerts.CustomResourceConditionStale.enabled=true",
      ],
    }),
  );
  const testsDir = join(repositoryRoot, "alerts", "tests");
  for (const file of readdirSync(testsDir).filter((f) => f.endsWith(".test.yaml"))) {
    const suite = parse(readFileSync(join(testsDir, file), "utf8")) as Record<string, unknown>;
    const path = join(scratch, file);
    writeFileSync(path, stringify({ ...suite, rule_files: [rendered] }));
    const result = runPromtool(["test", "rules", path]);
    assert.equal(result.status, 0, `${file}: ${result.output}`);
  }
  // A tuned NotReady: 30m instead of 15m, paging, with the routing label, on job "crs".
  const tuned = writeRules(
    "tuned.yaml",
    rulesOf({
      values: {
        nameOverride: "crs",
        prometheusRule: {
          enabled: true,
          additionalRuleLabels: { team: "platform" },
          alerts: { CustomResourceNotReady: { for: "30m", severity: "critical" } },
        },
      },
    }),
  );
  const object = 'group="example.com",kind="Widget",namespace="ns1",name="w1"';
  const suite = {
    rule_files: [tuned],
    evaluation_interval: "1m",
    tests: [
      {
        interval: "1m",
        input_series: [
          {
            series: `cr_condition{job="crs",instance="a",${object},type="Ready",status="False"}`,
            values: "1x40",
          },
          {
            series: `cr_condition{job="cr-status-exporter",instance="b",${object},type="Ready",status="False"}`,
            values: "1x40",
          },
          {
            series: `cr_condition_last_transition_timestamp_seconds{job="crs",instance="a",${object},type="Ready"}`,
            values: "0x40",
          },
        ],
        alert_rule_test: [
          { eval_time: "30m", alertname: "CustomResourceNotReady", exp_alerts: [] },
          {
            eval_time: "31m",
            alertname: "CustomResourceNotReady",
            exp_alerts: [
              {
                exp_labels: {
                  severity: "critical",
                  team: "platform",
                  group: "example.com",
                  kind: "Widget",
                  namespace: "ns1",
                  name: "w1",
                  type: "Ready",
                },
                exp_annotations: {
                  summary: "A custom resource is not Ready.",
                  description:
                    "Widget ns1/w1 (example.com) has been Ready=False for more than 30m; no reason given.",
                  runbook_url:
                    "https://github.com/cr-status-exporter/cr-status-exporter/blob/main/docs/runbook.md#customresourcenotready",
                },
              },
            ],
          },
        ],
      },
    ],
  };
  const path = join(scratch, "tuned.test.yaml");
  writeFileSync(path, stringify(suite));
  const result = runPromtool(["test", "rules", path]);
  assert.equal(result.status, 0, result.output);
});

test("every rendered exporter configuration and web configuration passes the exporter's own validation", () => {
  for (const render of [
    {},
    { valuesFiles: ["ci/values-all.yaml"] },
    { valuesFiles: ["ci/values-sidecar.yaml"], namespace: "example-operator-system" },
  ] satisfies HelmRender[]) {
    const configMap = helmTemplate(tools, chart, render).find(
      (o) => o.kind === "ConfigMap" && o.metadata.name.endsWith("-config"),
    );
    const data = (configMap?.data ?? {}) as Record<string, string>;
    const config = parseConfigText(data["config.yaml"] ?? "", "config.yaml", {});
    assert.match(config.listen, /^0\.0\.0\.0:9184$/);
    if (data["web-config.yaml"]) {
      assert.equal(config.webConfigFile, "/etc/cr-status-exporter/web-config.yaml");
      assert.ok(parseWebConfig(data["web-config.yaml"], config.webConfigFile).tls);
    }
  }
});

function renderedConfig(render: HelmRender): ReturnType<typeof parseConfigText> {
  const configMap = helmTemplate(tools, chart, render).find(
    (o) => o.kind === "ConfigMap" && o.metadata.name.endsWith("-config"),
  );
  return parseConfigText(
    ((configMap?.data ?? {}) as Record<string, string>)["config.yaml"] ?? "",
    "config.yaml",
    {},
  );
}

test("tracing values reach the URL the exporter posts spans to: endpoint as the base, tracesEndpoint as given", () => {
  const postsTo = (tracing: Record<string, unknown>): string => {
    const target = resolveTracingTarget(renderedConfig({ values: { tracing } }).tracing, {});
    assert.ok(target.on, "tracing is on");
    assert.equal(target.otlp.warning, undefined);
    return target.otlp.url;
  };
  const collector = "http://otel-collector.observability:4318";
  assert.equal(postsTo({ endpoint: collector }), `${collector}/v1/traces`);
  assert.equal(postsTo({ tracesEndpoint: `${collector}/v1/traces` }), `${collector}/v1/traces`);
  assert.equal(postsTo({ tracesEndpoint: `${collector}/custom` }), `${collector}/custom`);
  assert.equal(resolveTracingTarget(renderedConfig({}).tracing, {}).on, false);
});

test("otlpMetrics values reach the exporter's OTLP metrics settings; lease names tracing's Lease and creates its Role; one place only", () => {
  const collector = "http://otel-collector.observability:4318";
  const config = renderedConfig({
    values: {
      otlpMetrics: {
        endpoint: collector,
        protocol: "http/json",
        compression: "gzip",
        interval: "30s",
        headers: { "x-scope-orgid": "platform" },
      },
    },
  });
  const decision = resolveOtlpMetrics(config.otlpMetrics, {});
  assert.ok(decision.on, "OTLP metrics are on");
  assert.equal(decision.settings.target.url, `${collector}/v1/metrics`);
  assert.equal(decision.settings.target.protocol, "http/json");
  assert.equal(decision.settings.compression, "gzip");
  assert.equal(decision.settings.intervalMs, 30_000);
  assert.deepEqual(decision.settings.headers, { "x-scope-orgid": "platform" });
  const asGiven = renderedConfig({ values: { otlpMetrics: { metricsEndpoint: `${collector}/custom` } } });
  const custom = resolveOtlpMetrics(asGiven.otlpMetrics, {});
  assert.equal(custom.on && custom.settings.target.url, `${collector}/custom`);
  assert.equal(resolveOtlpMetrics(renderedConfig({}).otlpMetrics, {}).on, false);

  const leased = {
    otlpMetrics: { endpoint: collector, lease: true },
    tracing: { lease: { name: "cr-push" } },
  };
  const objects = helmTemplate(tools, chart, { values: leased, release: "x" });
  const role = objects.find((o) => o.kind === "Role" && o.metadata.name === "x-cr-status-exporter-lease");
  assert.deepEqual((role?.rules as { resourceNames?: string[] }[] | undefined)?.[1]?.resourceNames, [
    "cr-push",
  ]);
  const withLease = renderedConfig({ values: leased, release: "x" }).otlpMetrics;
  assert.equal(withLease.leaseName, "cr-push");
  assert.equal(withLease.leaseNamespace, role?.metadata.namespace, "the Role sits beside the Lease");

  const twice = helm([
    "template",
    "x",
    chart,
    ...minimal,
    "--set",
    "otlpMetrics.endpoint=http://a:4318",
    "--set",
    "config.otlpMetrics.endpoint=http://b:4318",
  ]);
  assert.notEqual(twice.status, 0, "both config.otlpMetrics and otlpMetrics.* accepted");
  assert.match(
    twice.output,
    /config\.otlpMetrics and otlpMetrics\.\*: give OTLP metrics settings in one place/,
  );
  const sharded = helm([
    "template",
    "x",
    chart,
    ...minimal,
    "--set",
    "sharding.enabled=true",
    "--set",
    "otlpMetrics.lease=true",
  ]);
  assert.notEqual(sharded.status, 0, "otlpMetrics.lease accepted with sharding");
  assert.match(sharded.output, /otlpMetrics\.lease: not with sharding\.enabled/);
  const badInterval = helm(["template", "x", chart, ...minimal, "--set", "otlpMetrics.interval=1d"]);
  assert.notEqual(badInterval.status, 0, "an interval the exporter refuses passed the chart's schema");
  assert.match(badInterval.output, /otlpMetrics\/interval/);
});

interface MonitorEndpoint {
  bearerTokenFile?: string;
  authorization?: { type: string; credentials: { name: string; key: string } };
  tlsConfig?: unknown;
}

function monitorOf(objects: KubeObject[]) {
  const monitor = find(objects, "ServiceMonitor");
  return { monitor, spec: monitor.spec as Record<string, unknown> & { endpoints: MonitorEndpoint[] } };
}

test("web.auth kubernetes: the ServiceMonitor sends the scraper's token through authorization, not bearerTokenFile", () => {
  const objects = helmTemplate(tools, chart, { valuesFiles: ["ci/values-all.yaml"], release: "x" });
  const { monitor, spec } = monitorOf(objects);
  const endpoint = spec.endpoints[0];
  assert.equal(endpoint?.bearerTokenFile, undefined);
  assert.deepEqual(endpoint?.authorization, {
    type: "Bearer",
    credentials: { name: "x-cr-status-exporter-scraper-token", key: "token" },
  });
  // The token Secret, its ServiceAccount and the ClusterRole's subject sit where prometheus-operator reads them.
  const secret = objects.find(
    (o) => o.kind === "Secret" && o.metadata.name === "x-cr-status-exporter-scraper-token",
  );
  assert.equal(secret?.metadata.namespace, monitor.metadata.namespace);
  assert.equal(secret?.type, "kubernetes.io/service-account-token");
  assert.equal(
    secret?.metadata.annotations?.["kubernetes.io/service-account.name"],
    "x-cr-status-exporter-scraper",
  );
  const role = objects.find(
    (o) => o.kind === "ClusterRole" && o.metadata.name === "x-cr-status-exporter-scraper",
  );
  assert.deepEqual(role?.rules, [{ nonResourceURLs: ["/metrics"], verbs: ["get"] }]);
  const binding = objects.find(
    (o) => o.kind === "ClusterRoleBinding" && o.metadata.name === "x-cr-status-exporter-scraper",
  );
  assert.deepEqual(binding?.subjects, [
    { kind: "ServiceAccount", name: "x-cr-status-exporter-scraper", namespace: monitor.metadata.namespace },
  ]);

  const own = helmTemplate(tools, chart, {
    valuesFiles: ["ci/values-all.yaml"],
    release: "x",
    values: { serviceMonitor: { authorization: { tokenSecretName: "prom-token" } } },
  });
  assert.equal(monitorOf(own).spec.endpoints[0]?.authorization?.credentials.name, "prom-token");
  assert.equal(own.filter((o) => o.metadata.name.endsWith("-scraper")).length, 0, "nothing created");
  const legacy = helmTemplate(tools, chart, {
    valuesFiles: ["ci/values-all.yaml"],
    values: { serviceMonitor: { authorization: { bearerTokenFile: true } } },
  });
  const legacyEndpoint = monitorOf(legacy).spec.endpoints[0];
  assert.equal(legacyEndpoint?.bearerTokenFile, "/var/run/secrets/kubernetes.io/serviceaccount/token");
  assert.equal(legacyEndpoint?.authorization, undefined);
  const plain = helmTemplate(tools, chart, { values: { serviceMonitor: { enabled: true } } });
  assert.equal(monitorOf(plain).spec.endpoints[0]?.authorization, undefined, "no token without web.auth");
});

test("a ServiceMonitor in another namespace with TLS needs its own tlsConfig: the CA Secret is read from its namespace", () => {
  const elsewhere = ["--set", "serviceMonitor.namespace=monitoring"];
  const refused = helm(["template", "x", chart, "-f", join(chart, "ci", "values-all.yaml"), ...elsewhere]);
  assert.notEqual(refused.status, 0);
  assert.match(
    refused.output,
    /serviceMonitor\.namespace: prometheus-operator reads the CA Secret .* from the ServiceMonitor's namespace monitoring, not the release's default/,
  );
  const given = helmTemplate(tools, chart, {
    valuesFiles: ["ci/values-all.yaml"],
    values: {
      serviceMonitor: {
        namespace: "monitoring",
        tlsConfig: { ca: { secret: { name: "ca-copy", key: "ca.crt" } } },
      },
    },
  });
  const { monitor, spec } = monitorOf(given);
  assert.equal(monitor.metadata.namespace, "monitoring");
  assert.deepEqual(spec.endpoints[0]?.tlsConfig, { ca: { secret: { name: "ca-copy", key: "ca.crt" } } });
  const token = given.find((o) => o.kind === "Secret" && o.metadata.name.endsWith("-scraper-token"));
  assert.equal(token?.metadata.namespace, "monitoring", "the token Secret beside the ServiceMonitor");
  // Without TLS nothing is read from a Secret: any namespace renders.
  const { monitor: plain } = monitorOf(
    helmTemplate(tools, chart, { values: { serviceMonitor: { enabled: true, namespace: "monitoring" } } }),
  );
  assert.equal(plain.metadata.namespace, "monitoring");
});

test("ServiceMonitor target labels, label limits and the scrape class come from values", () => {
  const { spec } = monitorOf(
    helmTemplate(tools, chart, {
      values: {
        serviceMonitor: {
          enabled: true,
          targetLabels: ["team"],
          podTargetLabels: ["app.kubernetes.io/version"],
          labelLimit: 40,
          labelNameLengthLimit: 128,
          labelValueLengthLimit: 1024,
          scrapeClass: "istio-mtls",
        },
      },
    }),
  );
  assert.deepEqual(
    [
      spec.targetLabels,
      spec.podTargetLabels,
      spec.labelLimit,
      spec.labelNameLengthLimit,
      spec.labelValueLengthLimit,
      spec.scrapeClass,
    ],
    [["team"], ["app.kubernetes.io/version"], 40, 128, 1024, "istio-mtls"],
  );
  const defaults = monitorOf(
    helmTemplate(tools, chart, { values: { serviceMonitor: { enabled: true } } }),
  ).spec;
  for (const key of ["targetLabels", "podTargetLabels", "labelLimit", "scrapeClass"]) {
    assert.equal(defaults[key], undefined, key);
  }
});

test("the job follows serviceMonitor.jobLabel: without it, prometheus-operator uses the Service name", () => {
  const jobOf = (render: HelmRender): string | undefined =>
    /job="([^"]+)"/.exec(alert(rulesOf(render), "CustomResourceNotReady")?.expr ?? "")?.[1];
  assert.equal(jobOf({ set: ["prometheusRule.enabled=true"] }), "cr-status-exporter");
  assert.equal(jobOf({ release: "team-a", set: ["prometheusRule.enabled=true", "nameOverride=crs"] }), "crs");
  assert.equal(
    jobOf({ release: "team-a", set: ["prometheusRule.enabled=true", "serviceMonitor.jobLabel="] }),
    "team-a-cr-status-exporter",
  );
});

test("the kustomize alert-tuning component's patch is what the chart renders for its values.yaml", () => {
  const component = join(repositoryRoot, alertTuningComponent);
  assert.equal(
    readFileSync(join(component, "prometheusrule-patch.yaml"), "utf8"),
    renderAlertTuningPatch(tools.helm, join(component, "values.yaml")),
    "stale: run npm run deploy:alert-tuning",
  );
});

test("checkConfig: the pod's init container is the exporter's own with --check-config for --config (Deployment and sharded StatefulSet), none when disabled", () => {
  type Container = Record<string, unknown> & { name: string; args: string[] };
  const podOf = (render: HelmRender, kind: string) =>
    (
      find(helmTemplate(tools, chart, render), kind).spec as {
        template: { spec: { initContainers?: Container[]; containers: Container[] } };
      }
    ).template.spec;
  for (const [render, kind] of [
    [{}, "Deployment"],
    [{ values: { sharding: { enabled: true } } }, "StatefulSet"],
  ] as const) {
    const pod = podOf(render, kind);
    const exporter = pod.containers.find((c) => c.name === "cr-status-exporter");
    assert.ok(exporter && pod.initContainers, kind);
    assert.equal(pod.initContainers.length, 1);
    const { name, args, ...rest } = pod.initContainers[0] as Container;
    assert.equal(name, "check-config");
    assert.deepEqual(
      args,
      exporter.args.map((a) => (a === "--config" ? "--check-config" : a)),
    );
    const { name: _n, args: _a, ports, startupProbe, livenessProbe, readinessProbe, ...same } = exporter;
    assert.ok(
      ports && livenessProbe && readinessProbe && startupProbe,
      `${kind}: the exporter has ports and probes`,
    );
    // The same image, environment, mounts, resources and security context: checked as the exporter will read it.
    assert.deepEqual(rest, same, kind);
  }
  assert.equal(
    podOf({ values: { checkConfig: { enabled: false } } }, "Deployment").initContainers,
    undefined,
  );
});

test("kustomize build --enable-helm renders the chart through helmCharts (no --kube-version there): the same objects as helm template", () => {
  const dir = mkdtempSync(join(scratch, "helmcharts-"));
  const values = { config: { resources: [{ group: "cert-manager.io", resource: "certificates" }] } };
  // Kustomize reads charts below the kustomization only (its chartHome, ./charts by default).
  cpSync(chart, join(dir, "charts", "cr-status-exporter"), { recursive: true });
  writeFileSync(
    join(dir, "kustomization.yaml"),
    stringify({
      helmCharts: [
        {
          name: "cr-status-exporter",
          releaseName: "cr-status-exporter",
          namespace: "monitoring",
          valuesInline: values,
        },
      ],
    }),
  );
  const built = execFileSync(tools.kustomize, ["build", "--enable-helm", "--helm-command", tools.helm, dir], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  const objects = (built.split(/^---$/m).map((d) => parse(d)) as KubeObject[]).filter(Boolean);
  const names = (list: KubeObject[]) => list.map((o) => `${o.kind}/${o.metadata.name}`).sort();
  const direct = helmTemplate(tools, chart, { valuesFiles: [], values, namespace: "monitoring" });
  assert.deepEqual(names(objects), names(direct));
  assert.ok(names(objects).includes("Deployment/cr-status-exporter"), names(objects).join(", "));
});
