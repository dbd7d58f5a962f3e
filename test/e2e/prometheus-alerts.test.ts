// The generated rules on a real Prometheus: a static /metrics page (standing
// in for the exporter) shows a custom resource with Ready=False; the
// CustomResourceNotReady alert, generated with a shortened duration, must
// fire through Prometheus' HTTP API once the condition's lastTransitionTime is
// that long ago (no pending phase: the rule has no `for`), carrying the
// condition's type and reason. Every dashboard panel query must also be
// accepted by that Prometheus.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { DEFAULT_ALERT_OPTIONS, generateRuleGroups, renderRuleFile } from "../../alerts/src/index.ts";
import { panelQueries } from "../../dashboards/src/index.ts";
import { closeServer, listenOn } from "../../src/net/listen.ts";
import { type PromAlert, usePrometheus } from "../prometheus/index.ts";

const JOB = "cr-status-exporter";
const OBJECT = 'group="example.com",kind="Widget",namespace="ns1",name="w1"';

// The page flips to Ready=False only when the test says so, so the alert cannot be firing from the start.
// Like the exporter, it shows each condition once, labelled with its current status, with its
// lastTransitionTime and reason.
let ready = true;
let transitionAt = Math.floor(Date.now() / 1000) - 3600;
function metricsPage(): string {
  return [
    "# TYPE cr_condition gauge",
    `cr_condition{${OBJECT},type="Ready",status="${ready ? "True" : "False"}"} 1`,
    "# TYPE cr_condition_last_transition_timestamp_seconds gauge",
    `cr_condition_last_transition_timestamp_seconds{${OBJECT},type="Ready"} ${transitionAt}`,
    "# TYPE cr_condition_reason gauge",
    `cr_condition_reason{${OBJECT},type="Ready",reason="${ready ? "Ok" : "BackendDown"}"} 1`,
    "# TYPE cr_status gauge",
    `cr_status{${OBJECT},result="${ready ? "Current" : "Failed"}"} 1`,
    "",
  ].join("\n");
}

let http: Server | undefined;
let target = "";
let ruleDir = "";

// Hooks of one file do not wait for each other's async work in a guaranteed
// order, so the page and the rule file are prepared inside the options factory.
const prometheus = usePrometheus(async () => {
  const page = createServer((request, response) => {
    if (request.url !== "/metrics") {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "content-type": "text/plain; version=0.0.4" }).end(metricsPage());
  });
  http = page;
  const bound = await listenOn(page, { host: "127.0.0.1", port: 0 });
  target = `${bound.host}:${bound.port}`;

  ruleDir = mkdtempSync(join(tmpdir(), "cr-rules-"));
  const groups = generateRuleGroups({
    ...DEFAULT_ALERT_OPTIONS,
    selector: `job="${JOB}"`,
    for: { ...DEFAULT_ALERT_OPTIONS.for, notReady: "4s" },
  });
  writeFileSync(join(ruleDir, "rules.yaml"), renderRuleFile(groups));
  return {
    scrape: [{ job: JOB, targets: [target] }],
    ruleFiles: [join(ruleDir, "rules.yaml")],
    scrapeInterval: "1s",
    evaluationInterval: "1s",
  };
});

after(async () => {
  if (http) await closeServer(http);
  if (ruleDir) rmSync(ruleDir, { recursive: true, force: true });
});

test("the generated rules load without errors", async () => {
  const server = prometheus.server;
  const groups = await server.waitFor("rule groups to be evaluated", async () => {
    const g = await server.rules();
    return g.length === 3 && g.every((x) => x.rules.every((r) => r.health === "ok")) ? g : undefined;
  });
  const generated = generateRuleGroups(DEFAULT_ALERT_OPTIONS).flatMap((g) => g.rules);
  assert.ok(generated.length >= 24, `${generated.length} rules`);
  assert.equal(groups.flatMap((g) => g.rules).length, generated.length);
});

test("CustomResourceNotReady fires for an object Ready=False for longer than its duration, with type and reason", async () => {
  const server = prometheus.server;
  await server.waitFor("the target to be scraped", async () =>
    (await server.query(`cr_condition{job="${JOB}",type="Ready",status="True"} == 1`)).length === 1
      ? true
      : undefined,
  );
  assert.deepEqual(
    (await server.alerts()).filter((a) => a.labels.alertname === "CustomResourceNotReady"),
    [],
    "no alert while the object is Ready",
  );

  transitionAt = Math.floor(Date.now() / 1000);
  ready = false;
  const seen: PromAlert["state"][] = [];
  const firing = await server.waitFor(
    "CustomResourceNotReady to fire",
    async () => {
      const alert = (await server.alerts()).find((a) => a.labels.alertname === "CustomResourceNotReady");
      if (alert && seen.at(-1) !== alert.state) seen.push(alert.state);
      return alert?.state === "firing" ? alert : undefined;
    },
    30_000,
  );
  // The duration is in the expression (time() - lastTransitionTime > 4): no `for`, no pending phase.
  assert.deepEqual(seen, ["firing"]);
  assert.ok(
    Date.parse(firing.activeAt) / 1000 - transitionAt > 4,
    `fired ${Date.parse(firing.activeAt) / 1000 - transitionAt} s after the transition`,
  );
  assert.deepEqual(firing.labels, {
    alertname: "CustomResourceNotReady",
    severity: "warning",
    group: "example.com",
    kind: "Widget",
    namespace: "ns1",
    name: "w1",
    type: "Ready",
    reason: "BackendDown",
  });
  assert.equal(firing.annotations.summary, "A custom resource is not Ready.");
  assert.equal(
    firing.annotations.description,
    "Widget ns1/w1 (example.com) has been Ready=False for more than 4s; reason: BackendDown.",
  );
  assert.match(firing.annotations.runbook_url ?? "", /runbook\.md#customresourcenotready$/);
});

test("Prometheus accepts every dashboard panel query", async () => {
  const server = prometheus.server;
  const queries = panelQueries({ rateInterval: "10s" });
  const failures: string[] = [];
  const now = Date.now() / 1000;
  for (const q of queries) {
    try {
      if (q.instant) await server.query(q.query);
      else await server.queryRange(q.query, now - 60, now, 5);
    } catch (error) {
      failures.push(`${q.dashboard} / ${q.panel} / ${q.refId}: ${(error as Error).message}`);
    }
  }
  assert.deepEqual(failures, []);
  assert.ok(queries.length > 40, `only ${queries.length} panel queries`);
});
