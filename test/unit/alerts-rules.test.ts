// The shipped rules through promtool (lint and unit tests) and the mixin style rules.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import {
  ALL_ALERT_OPTIONS,
  ALL_ALERTS_RULE_FILE,
  type AlertingRule,
  chartAlertDefaults,
  DEFAULT_ALERT_OPTIONS,
  generateRuleGroups,
  isAlertingRule,
  PROMETHEUS_RULE_FILE,
  RULE_FILE,
  RULE_TEMPLATE_FILE,
  type RuleGroup,
  renderRuleFile,
  templateRuleGroups,
} from "../../alerts/src/index.ts";
import { REPO_ROOT } from "../monitoring/metrics-contract.ts";
import { runPromtool } from "../prometheus/binaries.ts";

const TESTS_DIR = join(REPO_ROOT, "alerts", "tests");
const testFiles = readdirSync(TESTS_DIR)
  .filter((f) => f.endsWith(".test.yaml"))
  .map((f) => join(TESTS_DIR, f));

function alertsOf(options = DEFAULT_ALERT_OPTIONS): AlertingRule[] {
  return generateRuleGroups(options)
    .flatMap((g) => g.rules)
    .filter(isAlertingRule);
}

/** Every alert, the family alerts (off in the shipped rules) included. */
function shippedAlerts(): AlertingRule[] {
  return alertsOf(ALL_ALERT_OPTIONS);
}

function withTempRuleFile<T>(content: string, use: (path: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), "rules-"));
  try {
    const path = join(dir, "rules.yaml");
    writeFileSync(path, content);
    return use(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("promtool check rules --lint=all --lint-fatal accepts the rule file and the one with every alert", () => {
  for (const file of [RULE_FILE, ALL_ALERTS_RULE_FILE]) {
    const result = runPromtool(["check", "rules", "--lint=all", "--lint-fatal", join(REPO_ROOT, file)]);
    assert.equal(result.status, 0, `${file}: ${result.output}`);
  }
});

test("the heartbeat and condition-staleness alerts are off unless their families are exported", () => {
  const names = (options: typeof DEFAULT_ALERT_OPTIONS) => alertsOf(options).map((a) => a.alert);
  const family = ["CustomResourceHeartbeatStale", "CustomResourceConditionStale"];
  for (const name of family) assert.ok(!names(DEFAULT_ALERT_OPTIONS).includes(name), `${name} shipped on`);
  const heartbeat = alertsOf({
    ...DEFAULT_ALERT_OPTIONS,
    families: { heartbeat: true, conditionStale: false },
  });
  assert.deepEqual(
    heartbeat
      .filter((a) => family.includes(a.alert))
      .map((a) => [a.alert, /cr_heartbeat_timestamp_seconds\{/.test(a.expr)]),
    [["CustomResourceHeartbeatStale", true]],
  );
  const stale = alertsOf({ ...DEFAULT_ALERT_OPTIONS, families: { heartbeat: false, conditionStale: true } });
  assert.deepEqual(
    stale.filter((a) => family.includes(a.alert)).map((a) => [a.alert, /cr_condition_stale\{/.test(a.expr)]),
    [["CustomResourceConditionStale", true]],
  );
});

test("scope limits the per-object and per-namespace alerts to kinds and namespaces; an alert's own scope wins", () => {
  const options = {
    ...ALL_ALERT_OPTIONS,
    scope: { excludeNamespaces: "kube-.*", kinds: "Widget|Gadget" },
    alertScopes: { CustomResourceNotReady: { kinds: "Certificate", namespaces: "team-a" } },
  };
  const rules = generateRuleGroups(options);
  const [records, objects, exporter] = rules as [RuleGroup, RuleGroup, RuleGroup];
  const notReady = objects.rules.find((r) => isAlertingRule(r) && r.alert === "CustomResourceNotReady");
  // Both sides of the readiness join: the kind's own readiness condition, and the Ready fallback.
  assert.match(
    notReady?.expr ?? "",
    /cr_condition\{job="cr-status-exporter", kind=~"Certificate", namespace=~"team-a", namespace!~"kube-\.\*", status="False"\} and on/,
  );
  assert.match(
    notReady?.expr ?? "",
    /cr_condition\{job="cr-status-exporter", kind=~"Certificate", namespace=~"team-a", namespace!~"kube-\.\*", type="Ready", status="False"\} unless on/,
  );
  let readinessJoins = 0;
  for (const rule of objects.rules
    .filter(isAlertingRule)
    .filter((r) => r.alert !== "CustomResourceNotReady")) {
    // The info series naming each kind's readiness condition is read whole: a scope never turns a kind's
    // join into the Ready fallback. cr_suspended only takes objects out, so it needs no scope.
    const info = [...rule.expr.matchAll(/cr_exporter_resource_info(\{[^}]*\})/g)].map((m) => m[1]);
    for (const selector of info) assert.equal(selector, '{job="cr-status-exporter"}', rule.alert);
    if (info.length > 0) readinessJoins++;
    const selectors = [
      ...rule.expr.matchAll(/(?<!cr_exporter_resource_info|cr_suspended)\{job="cr-status-exporter"[^}]*\}/g),
    ].map((m) => m[0]);
    assert.ok(selectors.length > 0, rule.alert);
    for (const selector of selectors)
      assert.match(
        selector,
        /, kind=~"Widget\|Gadget", namespace!~"kube-\.\*"/,
        `${rule.alert}: ${selector}`,
      );
  }
  assert.equal(readinessJoins, 3, "ReadyUnknown, ReadyFlapping and Failed join on the readiness condition");
  // The recorded series and the exporter's own alerts are not scoped.
  for (const rule of [...records.rules, ...exporter.rules]) assert.doesNotMatch(rule.expr, /kube-|Widget/);
  const result = withTempRuleFile(renderRuleFile(rules), (path) =>
    runPromtool(["check", "rules", "--lint=all", "--lint-fatal", path]),
  );
  assert.equal(result.status, 0, result.output);
});

test("a scope that is not a regular expression, or names no alert, is rejected naming the field and value", () => {
  assert.throws(
    () => generateRuleGroups({ ...DEFAULT_ALERT_OPTIONS, scope: { namespaces: "team-(a" } }),
    /^Error: scope\.namespaces: "team-\(a" is not a regular expression/,
  );
  assert.throws(
    () =>
      generateRuleGroups({
        ...DEFAULT_ALERT_OPTIONS,
        alertScopes: { CustomResourceNotReadyy: { kinds: "X" } },
      }),
    /alertScopes\.CustomResourceNotReadyy: no such per-object or per-namespace alert is generated \(expected one of CustomResourceNotReady, /,
  );
  assert.throws(
    () => generateRuleGroups({ ...DEFAULT_ALERT_OPTIONS, scope: { kind: "X" } as never }),
    /scope\.kind: unknown field \(expected one of kinds, excludeKinds, namespaces, excludeNamespaces\)/,
  );
});

test("the PrometheusRule carries exactly the groups of the rule file, and they pass promtool", () => {
  const manifest = parse(readFileSync(join(REPO_ROOT, PROMETHEUS_RULE_FILE), "utf8"));
  const plain = parse(readFileSync(join(REPO_ROOT, RULE_FILE), "utf8"));
  assert.equal(manifest.apiVersion, "monitoring.coreos.com/v1");
  assert.equal(manifest.kind, "PrometheusRule");
  assert.equal(typeof manifest.metadata.name, "string");
  assert.deepEqual(manifest.spec.groups, plain.groups);
  const names = manifest.spec.groups.map((g: { name: string }) => g.name);
  assert.equal(new Set(names).size, names.length, "group names must be unique (list-map key in the CRD)");
  const result = withTempRuleFile(renderRuleFile(manifest.spec.groups), (path) =>
    runPromtool(["check", "rules", "--lint=all", "--lint-fatal", path]),
  );
  assert.equal(result.status, 0, result.output);
});

test("promtool test rules passes every alert unit test", () => {
  assert.ok(testFiles.length > 0, "no promtool test files in alerts/tests");
  const result = runPromtool(["test", "rules", ...testFiles]);
  assert.equal(result.status, 0, result.output);
  assert.doesNotMatch(result.output, /FAILED/);
});

test("every alert has a firing unit-test case and every case names an existing alert", () => {
  const alertNames = new Set(shippedAlerts().map((a) => a.alert));
  const tested = new Set<string>();
  const positive = new Set<string>();
  for (const file of testFiles) {
    const doc = parse(readFileSync(file, "utf8")) as {
      tests: { name: string; alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] }[];
    };
    for (const group of doc.tests) {
      for (const c of group.alert_rule_test ?? []) {
        assert.ok(
          alertNames.has(c.alertname),
          `${file}: "${group.name}" names ${c.alertname}, which is no alert`,
        );
        tested.add(c.alertname);
        if ((c.exp_alerts ?? []).length > 0) positive.add(c.alertname);
      }
    }
  }
  for (const name of alertNames) {
    assert.ok(tested.has(name), `${name} has no unit-test case in alerts/tests`);
    assert.ok(positive.has(name), `${name} has no unit-test case where it fires (exp_alerts)`);
  }
});

test("alerts follow the naming and annotation rules", () => {
  const groups = generateRuleGroups(DEFAULT_ALERT_OPTIONS);
  for (const group of groups) {
    assert.ok(group.name.length <= 40, `group ${group.name} is longer than 40 characters`);
    assert.ok(group.rules.length <= 20, `group ${group.name} has more than 20 rules`);
  }
  for (const rule of shippedAlerts()) {
    const name = rule.alert;
    assert.match(name, /^([A-Z]+[a-z0-9]+)+$/, `${name} is not CamelCase`);
    assert.ok(name.length <= 40, `${name} is longer than 40 characters`);
    assert.ok(["critical", "warning", "info"].includes(rule.labels.severity), `${name}: severity`);
    assert.match(rule.annotations.summary, /^[A-Z].+\.$/, `${name}: summary is a sentence`);
    assert.doesNotMatch(rule.annotations.summary, /\{\{/, `${name}: summary must not be templated`);
    assert.match(rule.annotations.description, /\{\{.+\}\}/, `${name}: description must be templated`);
    assert.ok(
      rule.annotations.runbook_url.endsWith(`runbook.md#${name.toLowerCase()}`),
      `${name}: runbook_url ${rule.annotations.runbook_url}`,
    );
    // The reason joins the four condition alerts (their duration is in the expression, so a new reason fires
    // at once, see alerts/src/rules.ts), one per object: by the topk guard. No other alert carries it.
    const reasonJoins = [
      ...rule.expr.matchAll(/group_left \(reason\) topk by \([^)]*\) \(1, max by \([^)]*\breason\)/g),
    ];
    const reasonAggregations = [...rule.expr.matchAll(/by \([^)]*\breason\b/g)];
    assert.equal(
      reasonAggregations.length,
      reasonJoins.length,
      `${name}: reason only through the guarded join`,
    );
    assert.equal(reasonJoins.length > 0, CONDITION_ALERTS.includes(name), `${name}: joins the reason`);
  }
});

/** The alerts whose duration is in the expression, from the condition's lastTransitionTime, with no `for`. */
const CONDITION_ALERTS = [
  "CustomResourceNotReady",
  "CustomResourceReadyUnknown",
  "CustomResourceStalled",
  "CustomResourceReconcilingTooLong",
];

test("no annotation calls query: what a description names is a label of the alert", () => {
  const variants = [
    alertsOf(DEFAULT_ALERT_OPTIONS),
    shippedAlerts(),
    alertsOf({ ...ALL_ALERT_OPTIONS, criticalKinds: ["Database"], includeSuspended: true, selector: "" }),
    templateRuleGroups()
      .flatMap((g) => g.rules)
      .filter(isAlertingRule),
  ];
  for (const alerts of variants) {
    assert.ok(alerts.length >= 18, `${alerts.length} alerts`);
    for (const rule of alerts)
      for (const [key, text] of Object.entries(rule.annotations)) {
        assert.doesNotMatch(text, /\bquery\b/, `${rule.alert}.${key}`);
        // Every template variable is a label or the value: nothing is looked up when the alert is sent.
        for (const [, variable] of text.matchAll(/\{\{[^}]*?(\$[A-Za-z_.]+)/g))
          assert.match(variable ?? "", /^\$(labels\.[a-z_]+|value)$/, `${rule.alert}.${key}: ${variable}`);
      }
  }
  // The shipped files too, as written.
  for (const file of [RULE_FILE, PROMETHEUS_RULE_FILE, ALL_ALERTS_RULE_FILE, RULE_TEMPLATE_FILE])
    assert.doesNotMatch(readFileSync(join(REPO_ROOT, file), "utf8"), /\bquery\b/, file);
});

test("the condition alerts have no for and count their duration from lastTransitionTime; the others keep their for", () => {
  for (const rule of shippedAlerts()) {
    if (CONDITION_ALERTS.includes(rule.alert)) {
      assert.equal(rule.for, undefined, rule.alert);
      assert.match(
        rule.expr,
        /time\(\) - min by \(cluster, namespace, group, kind, name, type\) \(cr_condition_last_transition_timestamp_seconds\{[^}]*\} and ignoring \(status\) /,
        rule.alert,
      );
    } else assert.match(rule.for ?? "", /^\d+[smhd]$/, rule.alert);
  }
  const seconds = Object.fromEntries(
    shippedAlerts()
      .filter((r) => CONDITION_ALERTS.includes(r.alert))
      .map((r) => [r.alert, [...r.expr.matchAll(/\) > (\d+)\)/g)].map((m) => Number(m[1]))]),
  );
  // Both sides of the reason join (with a reason, and the objects without one) compare with the same duration.
  assert.deepEqual(seconds, {
    CustomResourceNotReady: [900, 900],
    CustomResourceReadyUnknown: [1800, 1800],
    CustomResourceStalled: [300, 300],
    CustomResourceReconcilingTooLong: [3600, 3600],
  });
  // In the chart's template: the seconds are the chart's to compute from the alert's `for`.
  for (const rule of templateRuleGroups()
    .flatMap((g) => g.rules)
    .filter(isAlertingRule)) {
    if (!CONDITION_ALERTS.includes(rule.alert)) continue;
    assert.equal(rule.for, undefined, rule.alert);
    assert.match(rule.expr, /> @@forSeconds@@\)/, rule.alert);
    assert.match(rule.annotations.description, /for more than @@for@@/, rule.alert);
  }
  const defaults = chartAlertDefaults();
  assert.deepEqual(
    CONDITION_ALERTS.map((alert) => [defaults.alerts[alert]?.for, defaults.alerts[alert]?.fromTransition]),
    [
      ["15m", true],
      ["30m", true],
      ["5m", true],
      ["1h", true],
    ],
  );
  assert.equal(defaults.alerts.CustomResourceFailed?.fromTransition, false);
});

test("per-object alerts key on the object identity and drop the exporter's instance", () => {
  const perObject = shippedAlerts().filter(
    (a) => /^CustomResource[A-Z]/.test(a.alert) && !a.alert.includes("Failures"),
  );
  assert.ok(perObject.length >= 8);
  for (const rule of perObject) {
    // Per condition for the condition-staleness alert.
    assert.match(
      rule.expr,
      /by \(cluster, namespace, group, kind, name(, type)?\)/,
      `${rule.alert}: ${rule.expr}`,
    );
  }
});

test("criticalKinds makes the kinds' object alerts critical and the others stay warning", () => {
  const options = { ...DEFAULT_ALERT_OPTIONS, criticalKinds: ["Database", "Certificate"] };
  const notReady = generateRuleGroups(options)
    .flatMap((g) => g.rules)
    .filter((r): r is AlertingRule => isAlertingRule(r) && r.alert === "CustomResourceNotReady");
  assert.deepEqual(
    notReady.map((r) => [r.labels.severity, /kind(=~|!~)"Database\|Certificate"/.exec(r.expr)?.[1]]),
    [
      ["critical", "=~"],
      ["warning", "!~"],
    ],
  );
  const result = withTempRuleFile(renderRuleFile(generateRuleGroups(options)), (path) =>
    runPromtool(["check", "rules", "--lint=all", "--lint-fatal", path]),
  );
  assert.equal(result.status, 0, result.output);
});

test("a kind that is not a Kubernetes kind name is rejected with its value", () => {
  assert.throws(
    () => generateRuleGroups({ ...DEFAULT_ALERT_OPTIONS, criticalKinds: ['Data"base'] }),
    /criticalKinds: "Data"base" is not a Kubernetes kind/,
  );
});

test("the job selector and durations come from the options", () => {
  const options = {
    ...DEFAULT_ALERT_OPTIONS,
    selector: 'job="my-exporter"',
    for: { ...DEFAULT_ALERT_OPTIONS.for, notReady: "42m" as const },
  };
  const rules = generateRuleGroups(options).flatMap((g) => g.rules);
  for (const rule of rules) {
    if (/\b(cr_[a-z_]+|up)\{/.test(rule.expr)) assert.match(rule.expr, /job="my-exporter"/, rule.expr);
    assert.doesNotMatch(rule.expr, /job="cr-status-exporter"/);
  }
  const notReady = rules.find((r) => isAlertingRule(r) && r.alert === "CustomResourceNotReady");
  assert.ok(notReady && isAlertingRule(notReady));
  // 42 minutes since the lastTransitionTime; a resumed object waits as long (see suspended.ts).
  assert.match(notReady.expr, /\) > 2520\)/);
  assert.match(notReady.expr, /max_over_time\(cr_suspended\{job="my-exporter"\}\[42m\]\)/);
  assert.match(notReady.annotations.description, /for more than 42m\{\{/);
  const stuck = rules.find((r) => isAlertingRule(r) && r.alert === "CustomResourceStuckTerminating");
  assert.ok(stuck && isAlertingRule(stuck));
  assert.equal(stuck.for, DEFAULT_ALERT_OPTIONS.for.stuckTerminating);
  assert.throws(
    () =>
      generateRuleGroups({
        ...DEFAULT_ALERT_OPTIONS,
        for: { ...DEFAULT_ALERT_OPTIONS.for, stalled: "1h30m" as never },
      }),
    /"1h30m" is not a Prometheus duration of one unit \(such as 15m\)/,
  );
});

test("an empty selector adds no empty matcher, and the rules still pass promtool", () => {
  const text = renderRuleFile(generateRuleGroups({ ...ALL_ALERT_OPTIONS, selector: "" }));
  assert.match(text, /cr_condition_reason\{\} == 1/, "the reason join is there");
  assert.doesNotMatch(text, /\{, /);
  const result = withTempRuleFile(text, (path) =>
    runPromtool(["check", "rules", "--lint=all", "--lint-fatal", path]),
  );
  assert.equal(result.status, 0, result.output);
});
