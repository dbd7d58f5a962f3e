// The status page of the running exporter (started through the composition
// root, tracing on) over the demo fleet of `npm run demo` on a real
// kube-apiserver, in a real headless Chromium: the stuck widget listed first
// with its reason, a filter in the URL narrowing the table, a condition
// message with markup written on a real object shown as text and never run,
// and the keyboard reaching the filters. The first test's screenshot goes to
// STATUS_PAGE_SCREENSHOT when set (docs/status-page.png is made this way),
// else to the temporary directory.
import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, afterEach, before, describe, test } from "node:test";
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace";
import { parse } from "yaml";
import {
  createDemoFleet,
  demoConfigYaml,
  demoNamespaces,
  demoSims,
  demoTick,
  hotLoopWritesPerPass,
  stuckMessage,
  stuckWarningMessage,
} from "../../scripts/demo-fleet.ts";
import { type Browser, launchChromium } from "../browser/chromium.ts";
import {
  changeSpec,
  condition,
  createCr,
  installCrd,
  patchStatus,
  refFor,
  useControlPlane,
} from "../cluster/index.ts";
import { type ExporterHandle, runExporter } from "../support/exporter.ts";
import { xssMessage } from "../support/status-fleet.ts";
import {
  assertKeyboardReachesFilters,
  callsAfterLoad,
  eventually,
  type Row,
  rows,
} from "../support/status-page-dom.ts";

const testbed = useControlPlane();
const spans = new InMemorySpanExporter();
const traceUrl = "https://jaeger.example.com/trace/{traceId}";
let exporter: ExporterHandle;
let browser: Browser;
let base = "";

const stops: (() => unknown)[] = [];
const fileScope = { after: (fn: () => unknown) => void stops.push(fn) };

interface ApiItem {
  name: string;
  namespace: string;
  transitionsInWindow: number;
  warning: { reason: string; message: string } | null;
  links: { trace: string | null };
}

async function apiItems(query: string): Promise<ApiItem[]> {
  const response = await fetch(`${base}/api/v1/objects?${query}`);
  assert.equal(response.status, 200);
  return ((await response.json()) as { items: ApiItem[] }).items;
}

before(async () => {
  const plane = await testbed.ready();
  const rest = plane.admin.rest;
  for (const crd of ["widgets", "gadgets", "sprockets"] as const) await installCrd(rest, crd);
  const sims = demoSims();
  await createDemoFleet(rest, sims);
  const config = parse(demoConfigYaml("127.0.0.1:0")) as Record<string, unknown>;
  exporter = await runExporter(
    plane.kubeconfigPath,
    {
      ...config,
      statusPage: {
        dashboardUrl:
          "https://grafana.example.com/d/cr-status-object?var-namespace={namespace}&var-kind={kind}&var-name={name}",
        traceUrl,
        refresh: "0s",
      },
    },
    { spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] },
  );
  fileScope.after(() => exporter.stop());
  base = exporter.exporter.url;
  await eventually(
    "the exporter to list the demo fleet",
    async () => ((await apiItems("notReady=&limit=500")).length === 16 ? true : undefined),
    30_000,
  );
  // The simulated controller, pass after pass with no pause: rollouts to Ready, the stuck widget on
  // ImagePullBackOff (since the controller started, 10 minutes ago: past failedAfter), the flapping
  // one False, True, False, True, False; then a spec change of one widget, still rolling out.
  const options = { started: new Date(Date.now() - 600_000), specChangeChance: 0 };
  const failed = (sim: { name: string }, error: Error) => {
    throw new Error(`demo step for ${sim.name}: ${error.message}`);
  };
  for (const tick of [1, 2, 3, 4]) await demoTick(rest, sims, tick, options, failed);
  await changeSpec(rest, refFor("widgets", "payments", "widget-2"), { size: 2 });
  await demoTick(rest, sims, 5, options, failed);
  await eventually(
    "the exporter to see the demo controller's fifth pass",
    async () => {
      const notReady = (await apiItems("notReady=true")).map((i) => `${i.namespace}/${i.name}`).sort();
      const flappy = (await apiItems("name=flappy")).at(0);
      const stuck = (await apiItems("name=stuck")).at(0);
      return notReady.join() === "payments/flappy-widget,payments/widget-2,shop/stuck-widget" &&
        flappy?.transitionsInWindow === 4 &&
        stuck?.warning?.reason === "Failed"
        ? true
        : undefined;
    },
    30_000,
  );
  browser = await launchChromium(fileScope);
});

afterEach((t) => {
  if ("passed" in t && !t.passed && exporter)
    console.error(`# exporter log tail:\n${exporter.logs.slice(-30).join("\n")}`);
});

after(async () => {
  for (const stop of stops.reverse()) await stop();
});

describe("the demo fleet's status page in Chromium", () => {
  test("the stuck widget is listed first, with its reason and message; the trace link is the tracer's", async (t) => {
    const page = await browser.newPage();
    await page.goto(`${base}/`);
    const listed = await rows(page);
    const names = listed.map((r) => `${r.namespace}/${r.name}`);
    assert.equal(names[0], "shop/stuck-widget", `longest not Ready first: ${names}`);
    assert.deepEqual(names.slice(1).sort(), ["payments/flappy-widget", "payments/widget-2"]);
    const stuck = listed[0] as Row;
    assert.deepEqual(
      { status: stuck.status, reason: stuck.reason, message: stuck.message, since: stuck.since },
      { status: "Failed", reason: "ImagePullBackOff", message: stuckMessage, since: "10m" },
    );
    // Tracing is on: the stuck widget's generation 1 is still open, and its link names that trace.
    const [item] = await apiItems("name=stuck-widget");
    const traceId = item?.links.trace?.replace("https://jaeger.example.com/trace/", "");
    assert.match(traceId ?? "", /^[0-9a-f]{32}$/, JSON.stringify(item));
    assert.ok(stuck.links.includes(`https://jaeger.example.com/trace/${traceId}`), `${stuck.links}`);
    // The demo controller's Warning event about it, as a line under its status.
    const warning = await page.evaluate<string>(
      `document.querySelector("tbody.rows tr .warning-event")?.textContent ?? ""`,
    );
    assert.equal(warning.replace(/\d+s ago/, "Ns ago"), `Warning Failed Ns ago: ${stuckWarningMessage}`);
    assert.deepEqual(page.console, [], "no console errors");

    const shot = process.env.STATUS_PAGE_SCREENSHOT
      ? resolve(process.env.STATUS_PAGE_SCREENSHOT)
      : join(tmpdir(), "cr-status-demo-page", "status-page.png");
    await page.screenshot(shot);
    t.diagnostic(`screenshot: ${shot}`);
  });

  test("the hot-looping widget's no-op status writes stand out; the healthy widgets' heartbeats do not", async () => {
    const text = await (await fetch(`${base}/metrics`)).text();
    const noop = (ns: string, name: string): number => {
      const line = text
        .split("\n")
        .find(
          (l) =>
            l.startsWith("cr_status_noop_updates_total{") && l.includes(`namespace="${ns}",name="${name}"`),
        );
      return Number(line?.split(" ").at(-1) ?? 0);
    };
    // 5 passes × hotLoopWritesPerPass writes that change nothing but a timestamp.
    assert.ok(
      noop("search", "busy-widget") >= 4 * hotLoopWritesPerPass,
      `busy-widget ${noop("search", "busy-widget")}`,
    );
    for (const ns of demoNamespaces) {
      assert.ok(noop(ns, "widget-1") <= 1, `${ns}/widget-1 heartbeats ${noop(ns, "widget-1")}`);
    }
  });

  test("a filter in the URL narrows the table and fills the form", async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/?namespace=payments`);
    assert.deepEqual((await rows(page)).map((r) => r.name).sort(), ["flappy-widget", "widget-2"]);
    assert.equal(await page.evaluate(`document.getElementById("f-namespace").value`), "payments");
    await page.goto(`${base}/?notReady=&namespace=search&sort=name`);
    assert.deepEqual(
      (await rows(page)).map((r) => r.name),
      ["busy-widget", "widget-1", "widget-2", "widget-3", "widget-4"],
      "all of one namespace, Ready ones too",
    );
    await page.goto(`${base}/?flapping=true`);
    assert.deepEqual(
      (await rows(page)).map((r) => r.name),
      ["flappy-widget"],
    );
  });

  test("the keyboard reaches the skip link, every filter and Apply, in order; Enter applies", async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/`);
    await assertKeyboardReachesFilters(page);
    await page.evaluate(`document.getElementById("f-namespace").focus()`);
    await page.type("shop");
    await page.navigatedBy(() => page.press("Enter"));
    const names = await eventually("the rows of namespace shop", async () => {
      const listed = (await rows(page)).map((r) => r.name);
      return listed.join() === "stuck-widget" ? listed : undefined;
    });
    assert.deepEqual(names, ["stuck-widget"]);
    assert.match(await page.evaluate<string>("location.search"), /namespace=shop/);
  });
});

describe("a condition message with markup, written on a real object", () => {
  before(async () => {
    const rest = testbed.plane.admin.rest;
    const ref = refFor("widgets", "shop", "injected-widget");
    await createCr(rest, ref, "injected-widget", { size: 1 }, { labels: { app: "shop" } });
    await patchStatus(rest, ref, {
      observedGeneration: 1,
      conditions: [condition("Ready", "False", "ImagePullBackOff", xssMessage, 1)],
    });
    await eventually("the exporter to see the injected message", async () => {
      const response = await fetch(`${base}/api/v1/objects?name=injected`);
      const body = (await response.json()) as { items: { ready: { message: string } | null }[] };
      return body.items[0]?.ready?.message === xssMessage ? true : undefined;
    });
  });

  for (const csp of ["bypassed (escaping alone)", "enforced"] as const) {
    test(`is shown as text and never runs; Content-Security-Policy ${csp}`, async (t) => {
      const page = await browser.newPage();
      await page.addBinding("__xss");
      if (csp.startsWith("bypassed")) await page.bypassCsp(true);
      await page.goto(`${base}/?name=injected`);
      assert.deepEqual(await callsAfterLoad(page), [], "no injected script or handler ran");
      assert.deepEqual(await page.evaluate(`window.__cspViolations`), [], "nothing inline was attempted");
      const [row] = await rows(page);
      assert.equal(row?.message, xssMessage, "the message is the text it is");
      assert.equal(
        await page.evaluate(`document.querySelectorAll("tbody.rows img, tbody.rows script").length`),
        0,
      );
      const html = await (await fetch(`${base}/?name=injected`)).text();
      const escaped = html.match(/pull failed: [^\n]*?&quot;quoted&quot;/)?.[0];
      assert.ok(escaped, "the message is in the HTML, escaped");
      t.diagnostic(`served as: ${escaped}`);
    });
  }
});
