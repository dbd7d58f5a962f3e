// The status page in a real headless Chromium, served by the real koa routes
// over a fixed fleet of object views: what a person sees, what the keyboard
// reaches, and that a hostile condition message stays text.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  type Browser,
  type BrowserPage,
  launchChromium,
  type NetworkExchange,
  responseHeader,
} from "../browser/chromium.ts";
import { statusFleet, xssMessage } from "../support/status-fleet.ts";
import {
  assertKeyboardReachesFilters,
  callsAfterLoad,
  eventually,
  rows,
} from "../support/status-page-dom.ts";
import { serveStatus } from "../support/status-server.ts";
import { condition, fixedSource, view, viewNow } from "../support/views.ts";

const screenshots = join(tmpdir(), "cr-status-page-screenshots");
const fleet = statusFleet();
let browser: Browser;
let base: string;

// One browser and one server for the file, stopped after its last test.
const stops: (() => unknown)[] = [];
const fileScope = { after: (fn: () => unknown) => void stops.push(fn) };
after(async () => {
  for (const stop of stops.reverse()) await stop();
});

before(async () => {
  browser = await launchChromium(fileScope);
  base = await serveStatus(fileScope, fixedSource(fleet), {
    dashboardUrl:
      "https://grafana.example.com/d/cr-status-object?var-namespace={namespace}&var-kind={kind}&var-name={name}",
    traceUrl: "https://jaeger.example.com/trace/{traceId}",
    refreshSeconds: 0,
  });
});

describe("the status page in Chromium", () => {
  test("lists the stuck widget first, with its reason, message, since and links", async (t) => {
    const page = await browser.newPage();
    await page.goto(`${base}/`);
    const listed = await rows(page);
    assert.equal(
      listed[0]?.name,
      "stuck-widget",
      `longest not Ready first; got ${listed.map((r) => r.name)}`,
    );
    assert.deepEqual(
      { ...listed[0], links: undefined },
      {
        name: "stuck-widget",
        namespace: "shop",
        status: "Failed",
        reason: "ImagePullBackOff",
        message: 'Back-off pulling image "registry.example.com/shop/widget:v2"',
        since: "3h",
        links: undefined,
      },
    );
    assert.deepEqual(listed[0]?.links, [
      "https://grafana.example.com/d/cr-status-object?var-namespace=shop&var-kind=Widget&var-name=stuck-widget",
      "https://jaeger.example.com/trace/4bf92f3577b34da6a3ce929d0e0e4736",
      "/api/v1/objects/uid-shop-stuck-widget",
    ]);
    assert.ok(!listed.some((r) => r.name === "alpha-widget"), "Ready objects are not in the not-Ready table");
    assert.deepEqual(
      await page.evaluate(
        `["header", "main", "footer", "form[role=search]", "table caption", "th[scope=col]"].map((s) => document.querySelectorAll(s).length > 0)`,
      ),
      [true, true, true, true, true, true],
      "landmarks, a search form and table headers",
    );
    const shot = join(screenshots, "status-page.png");
    await page.screenshot(shot);
    t.diagnostic(`screenshot: ${shot}`);
    assert.deepEqual(page.console, [], "no console errors");
  });

  test("a filter in the URL narrows the table and fills the form", async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/`);
    const all = (await rows(page)).map((r) => r.name);
    await page.goto(`${base}/?namespace=search`);
    const narrowed = (await rows(page)).map((r) => r.name);
    assert.deepEqual(narrowed, ["slow-widget", "flappy-widget"]);
    assert.ok(all.length > narrowed.length && all.includes("stuck-widget"));
    assert.equal(await page.evaluate(`document.getElementById("f-namespace").value`), "search");
  });

  test("a bad filter answers 400 and says which parameter and value", async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/?lagging=maybe`);
    const alert = await page.evaluate<string>(`document.querySelector("[role=alert]").textContent`);
    assert.match(alert, /lagging="maybe": expected true or false/);
  });

  test("the keyboard reaches the skip link, the filters and Apply; Enter submits them", async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/`);
    await assertKeyboardReachesFilters(page);

    // A focused field shows a visible focus ring; typing and Enter apply the filter.
    await page.evaluate(`document.getElementById("f-namespace").focus()`);
    assert.equal(await page.evaluate(`getComputedStyle(document.activeElement).outlineStyle`), "solid");
    await page.type("search");
    await page.navigatedBy(() => page.press("Enter"));
    assert.match(await page.evaluate<string>("location.search"), /namespace=search/);
    await eventually("the filtered rows", async () => {
      const names = (await rows(page)).map((r) => r.name);
      return names.join() === "slow-widget,flappy-widget" ? names : undefined;
    });
  });

  test("reads without JavaScript; dark and light follow prefers-color-scheme", async () => {
    const page = await browser.newPage();
    await page.disableScripts(true);
    await page.goto(`${base}/?notReady=`);
    assert.equal((await rows(page)).length, fleet.length);
    assert.equal(await page.evaluate(`document.getElementById("auto-refresh").hidden`), true);
    await page.colorScheme("dark");
    assert.equal(await page.evaluate(`getComputedStyle(document.body).backgroundColor`), "rgb(13, 17, 23)");
    await page.colorScheme("light");
    assert.equal(
      await page.evaluate(`getComputedStyle(document.body).backgroundColor`),
      "rgb(255, 255, 255)",
    );
  });
});

describe("a condition message with markup is text and never runs", () => {
  test("control: the same message as raw markup does run, and the detector sees it", async (t) => {
    const server = createServer((_req, res) => {
      res.setHeader("Content-Type", "text/html");
      res.end(`<!doctype html><title>raw</title><p>${xssMessage}</p>`);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    t.after(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    const address = server.address() as { port: number };
    const page = await browser.newPage();
    await page.addBinding("__xss");
    await page.goto(`http://127.0.0.1:${address.port}/`);
    assert.deepEqual((await callsAfterLoad(page)).sort(), ["__xss(img)", "__xss(script)"]);
  });

  for (const csp of ["bypassed (escaping alone)", "enforced"] as const) {
    test(`on the status page, Content-Security-Policy ${csp}`, async () => {
      const page = await browser.newPage();
      await page.addBinding("__xss");
      if (csp.startsWith("bypassed")) await page.bypassCsp(true);
      await page.goto(`${base}/?name=injected`);
      assert.deepEqual(await callsAfterLoad(page), [], "no injected script or handler ran");
      assert.deepEqual(
        await page.evaluate(`window.__cspViolations`),
        [],
        "nothing inline was even attempted",
      );
      const [row] = await rows(page);
      assert.equal(row?.message, xssMessage, "the message is shown as the text it is");
      assert.equal(
        await page.evaluate(`document.querySelectorAll("tbody.rows img, tbody.rows script").length`),
        0,
      );
    });
  }
});

test("auto-refresh replaces the sections in place when the fleet changes", async (t) => {
  const views = statusFleet();
  const url = await serveStatus(t, fixedSource(views), { refreshSeconds: 1 });
  const page = await browser.newPage();
  await page.goto(`${url}/`);
  await page.evaluate(`window.__notReloaded = true`);
  assert.equal(await page.evaluate(`document.getElementById("auto-refresh").hidden`), false);
  views.push(
    view({
      name: "new-trouble",
      result: "Failed",
      ready: condition("Ready", "False", { reason: "QuotaExceeded", since: viewNow - 10 }),
    }),
  );
  const names = await eventually("the new object after a refresh", async () => {
    const listed = (await rows(page)).map((r) => r.name);
    return listed.includes("new-trouble") ? listed : undefined;
  });
  assert.equal(names.length, 7);
  assert.equal(await page.evaluate(`window.__notReloaded`), true, "refreshed without reloading the page");
  assert.match(await page.evaluate<string>("document.title"), /^7 not Ready/);
});

/** Waits `periods` times the page's own refresh period, on the page's timers (a refresh tick due earlier runs first). */
function refreshPeriods(page: BrowserPage, periods: number): Promise<void> {
  return page.evaluate(
    `new Promise((resolve) => setTimeout(resolve, ${periods} * Number(document.body.dataset.refresh) * 1000))`,
  );
}

test("Chromium receives the page, its own refreshes and the API gzipped (Content-Encoding, fewer bytes on the wire)", async (t) => {
  const url = await serveStatus(t, fixedSource(statusFleet()), { refreshSeconds: 0.5 });
  const page = await browser.newPage();
  await page.recordNetwork();
  await page.goto(`${url}/?notReady=`);
  const api = ["/api/v1/objects?notReady=true", "/api/v1/objects/uid-shop-stuck-widget"];
  // Below 1 KiB the answer is sent as it is: the control that the wire bytes tell the two apart.
  const small = "/api/v1/objects?name=matches-nothing";
  // What the page's script reads: each body's UTF-8 bytes, after Chromium decoded it.
  const read = await page.evaluate<number[]>(
    `Promise.all(${JSON.stringify([...api, small])}.map((u) => fetch(u).then((r) => r.text()).then((t) => new TextEncoder().encode(t).length)))`,
  );
  const byUrl = (type: string, path: string) => page.exchange((e) => e.type === type && e.url === url + path);
  const gzipped: [string, NetworkExchange][] = [
    ["the page", await byUrl("Document", "/?notReady=")],
    ["the page's own refresh", await byUrl("Fetch", "/?notReady=")],
    ...(await Promise.all(
      api.map(async (path) => [path, await byUrl("Fetch", path)] as [string, NetworkExchange]),
    )),
  ];
  for (const [what, e] of gzipped) {
    t.diagnostic(`${what}: ${e.encodedDataLength} bytes on the wire, ${e.dataLength} decoded`);
    assert.equal(e.status, 200, what);
    assert.equal(responseHeader(e, "Content-Encoding"), "gzip", `${what}: ${JSON.stringify(e.headers)}`);
    assert.match(responseHeader(e, "Vary") ?? "", /Accept-Encoding/, what);
    assert.ok(
      (e.encodedDataLength ?? Number.POSITIVE_INFINITY) < e.dataLength,
      `${what}: ${e.encodedDataLength} bytes received (headers included) for ${e.dataLength} decoded`,
    );
  }
  assert.deepEqual(
    read.slice(0, api.length),
    gzipped.slice(2).map(([, e]) => e.dataLength),
    "the script reads the bodies Chromium decoded",
  );
  const plain = await byUrl("Fetch", small);
  assert.equal(plain.status, 200);
  assert.equal(responseHeader(plain, "Content-Encoding"), undefined);
  assert.equal(plain.dataLength, read[api.length]);
  assert.ok((plain.encodedDataLength ?? 0) > plain.dataLength, "unencoded: the body and its headers");
  assert.deepEqual(page.console, [], "no console errors");
});

test("Pause auto-refresh keeps the sections while the fleet changes; Resume brings the change in", async (t) => {
  const views = statusFleet();
  const url = await serveStatus(t, fixedSource(views), { refreshSeconds: 0.5 });
  const page = await browser.newPage();
  await page.recordNetwork();
  await page.goto(`${url}/`);
  await page.evaluate(`window.__notReloaded = true`);
  const isRefresh = (e: NetworkExchange) => e.type === "Fetch" && e.url === `${url}/`;
  const button = () =>
    page.evaluate<{ text: string; pressed: string | null }>(
      `(({ textContent, ariaPressed }) => ({ text: textContent, pressed: ariaPressed }))(document.getElementById("auto-refresh"))`,
    );
  // The page refreshes itself before the pause.
  await page.exchange(isRefresh);

  await page.click("#auto-refresh");
  assert.deepEqual(await button(), { text: "Resume auto-refresh", pressed: "true" });
  // A refresh that had started before the click still lands (with the fleet as it was): let it.
  await refreshPeriods(page, 1);
  await eventually("no refresh on its way", async () =>
    page.network.filter(isRefresh).every((e) => e.done) ? true : undefined,
  );

  views.push(
    view({
      name: "new-trouble",
      result: "Failed",
      ready: condition("Ready", "False", { reason: "QuotaExceeded", since: viewNow - 10 }),
    }),
  );
  const sentBeforeChange = page.network.filter(isRefresh).length;
  // Two periods: at least one refresh tick comes due after the change, while paused.
  await refreshPeriods(page, 2);
  assert.equal(page.network.filter(isRefresh).length, sentBeforeChange, "no refresh asked while paused");
  assert.ok(!(await rows(page)).some((r) => r.name === "new-trouble"), "the objects section is as it was");
  assert.match(await page.evaluate<string>("document.title"), /^6 not Ready/);
  assert.match(await page.evaluate<string>(`document.getElementById("updated").textContent`), /6 not Ready/);

  await page.click("#auto-refresh");
  assert.deepEqual(await button(), { text: "Pause auto-refresh", pressed: "false" });
  await page.exchange((e) => isRefresh(e) && page.network.indexOf(e) >= sentBeforeChange);
  await eventually("the new object after Resume", async () =>
    (await rows(page)).some((r) => r.name === "new-trouble") ? true : undefined,
  );
  assert.match(await page.evaluate<string>("document.title"), /^7 not Ready/);
  assert.equal(await page.evaluate(`window.__notReloaded`), true, "refreshed in place, not reloaded");
  assert.deepEqual(page.console, [], "no console errors");
});

test("flapping, a Failed phase and a status never written are said on the row; flapping stays in the default view", async (t) => {
  const views = [
    view({
      name: "flapping-but-ready",
      transitionsInWindow: 6,
      ready: condition("Ready", "True", { since: viewNow - 20 }),
    }),
    view({
      name: "failed-phase",
      result: "InProgress",
      phase: "Failed",
      ready: condition("Ready", "False", { reason: "BackoffLimitExceeded", since: viewNow - 600 }),
    }),
    view({ name: "never-written", result: "Unknown", ready: undefined, observedGeneration: undefined }),
    view({ name: "quietly-ready" }),
  ];
  const url = await serveStatus(t, fixedSource(views), { refreshSeconds: 0 });
  const page = await browser.newPage();
  await page.goto(`${url}/`);
  const marks = await page.evaluate<Record<string, { text: string; title: string | null }[]>>(
    `Object.fromEntries([...document.querySelectorAll("tbody.rows tr")].map((tr) => [
      tr.children[2].textContent.trim(),
      [...tr.children[3].querySelectorAll(".mark")].map((m) => ({ text: m.textContent, title: m.getAttribute("title") })),
    ]))`,
  );
  assert.deepEqual(Object.keys(marks).sort(), ["failed-phase", "flapping-but-ready", "never-written"]);
  assert.equal(marks["flapping-but-ready"]?.[0]?.text, "Flapping: 6 changes in 15m");
  assert.match(
    marks["flapping-but-ready"]?.[0]?.title ?? "",
    /^6 condition status changes in the last 15m; the page calls 4 or more flapping .*CustomResourceReadyFlapping/,
  );
  assert.deepEqual(
    marks["failed-phase"]?.map((m) => m.text),
    ["phase Failed"],
  );
  assert.deepEqual(
    marks["never-written"]?.map((m) => m.text),
    ["status not written yet"],
  );
  assert.equal(
    await page.evaluate<string>(`document.getElementById("objects-h").textContent`),
    "Not Ready or flapping objects",
  );
  assert.equal(await page.evaluate<string>(`document.getElementById("f-show").value`), "attention");

  // Show: not Ready is strict; all lists the quiet one too.
  await page.goto(`${url}/?show=notReady`);
  assert.deepEqual((await rows(page)).map((r) => r.name).sort(), ["failed-phase", "never-written"]);
  await page.goto(`${url}/?show=all`);
  assert.equal((await rows(page)).length, 4);
  const bad = await fetch(`${url}/?show=some`);
  assert.equal(bad.status, 400);
  assert.match(
    await bad.text(),
    /query parameter show=(&quot;|")some(&quot;|"): expected one of attention, notReady, ready, all/,
  );
});

test("at 360 px every column of a row is on screen, as labelled lines (no horizontal scrolling)", async (t) => {
  const page = await browser.newPage(360, 740);
  await page.goto(`${base}/`);
  const layout = await page.evaluate<{
    pageWidth: number;
    offScreen: string[];
    labels: string[];
    firstRowBottoms: number[];
  }>(`(() => {
    const rows = [...document.querySelectorAll("tbody.rows tr")];
    const offScreen = rows.flatMap((tr) => [...tr.children].filter((c) => {
      const r = c.getBoundingClientRect();
      // An empty cell (no reason) is left out on narrow screens.
      if (getComputedStyle(c).display === "none") return c.textContent.trim() !== "";
      return r.width === 0 || r.left < 0 || r.right > 361;
    }).map((c) => tr.children[2].textContent.trim() + ":" + (c.dataset.label ?? "name")));
    return {
      pageWidth: document.documentElement.scrollWidth,
      offScreen,
      labels: [...rows[0].querySelectorAll("td")].map((td) => getComputedStyle(td, "::before").content),
      firstRowBottoms: rows.slice(0, 3).map((tr) => Math.round(tr.getBoundingClientRect().bottom)),
    };
  })()`);
  t.diagnostic(`row bottoms at 360 px: ${layout.firstRowBottoms.join(", ")}`);
  assert.ok(layout.pageWidth <= 360, `the page scrolls sideways: ${layout.pageWidth} px wide`);
  assert.deepEqual(layout.offScreen, []);
  assert.ok(
    (layout.firstRowBottoms[0] ?? 9999) <= 740,
    "the longest not-Ready object is on the first screen",
  );
  assert.deepEqual(layout.labels, [
    '"Kind: "',
    '"Namespace: "',
    '"Status: "',
    '"Reason: "',
    '"Message: "',
    '"Since: "',
    '"Lag: "',
    '"Links: "',
  ]);
  await page.screenshot(join(screenshots, "status-page-360.png"));
  // Wide screens keep the table.
  const wide = await browser.newPage(1280, 900);
  await wide.goto(`${base}/`);
  assert.equal(
    await wide.evaluate<string>(`getComputedStyle(document.querySelector("tbody.rows tr")).display`),
    "table-row",
  );
});
