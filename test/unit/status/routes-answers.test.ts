// What the status routes answer beyond their status codes: the headers every
// answer carries, the JSON bodies' shape, the page's Show choices, trace ids
// looked up for what is shown, and which paths are theirs at all.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ViewSource } from "../../../src/status/view.ts";
import { statusFleet } from "../../support/status-fleet.ts";
import { serveStatus } from "../../support/status-server.ts";
import { condition, fixedSource, view } from "../../support/views.ts";

test("every answer is no-store, nosniff and no-referrer; JSON is locked down by its own CSP", async (t) => {
  const base = await serveStatus(t, fixedSource(statusFleet()));
  for (const path of ["/", "/api/v1/objects", "/api/v1/summary", "/api/v1/objects/none", "/api/v9"]) {
    const response = await fetch(`${base}${path}`);
    await response.arrayBuffer();
    assert.equal(response.headers.get("cache-control"), "no-store", path);
    assert.equal(response.headers.get("x-content-type-options"), "nosniff", path);
    assert.equal(response.headers.get("referrer-policy"), "no-referrer", path);
    if (path !== "/")
      assert.equal(
        response.headers.get("content-security-policy"),
        "default-src 'none'; frame-ancestors 'none'",
        path,
      );
  }
});

test("JSON answers are indented by two and end in a newline", async (t) => {
  const base = await serveStatus(t, fixedSource(statusFleet()));
  const text = await (await fetch(`${base}/api/v1/objects/none`)).text();
  assert.equal(
    text,
    `${JSON.stringify(
      {
        error: {
          status: 404,
          message: 'no object with uid "none" is watched (deleted, or never seen)',
        },
      },
      null,
      2,
    )}\n`,
  );
});

test("/api/v1/objects: now, total, the continue token or null, and the items", async (t) => {
  const base = await serveStatus(t, fixedSource(statusFleet()));
  type Page = { now: string; total: number; continue: string | null; items: { name: string }[] };
  const first = (await (await fetch(`${base}/api/v1/objects?limit=2`)).json()) as Page;
  assert.equal(first.now, "2027-01-15T08:00:00Z");
  assert.equal(first.total, statusFleet().length);
  assert.equal(first.items.length, 2);
  assert.equal(typeof first.continue, "string");
  const all = (await (await fetch(`${base}/api/v1/objects?limit=500`)).json()) as Page;
  assert.equal(all.continue, null);
  assert.equal(all.items.length, statusFleet().length);
  const next = (await (
    await fetch(`${base}/api/v1/objects?limit=2&continue=${encodeURIComponent(first.continue ?? "")}`)
  ).json()) as Page;
  assert.deepEqual(
    next.items.map((i) => i.name),
    all.items.slice(2, 4).map((i) => i.name),
  );
});

test("/api/v1/objects/{uid}: the object with now; a query parameter there is named in the 400", async (t) => {
  const base = await serveStatus(t, fixedSource(statusFleet()));
  const found = (await (await fetch(`${base}/api/v1/objects/uid-shop-stuck-widget`)).json()) as {
    now: string;
    object: { name: string };
  };
  assert.equal(found.now, "2027-01-15T08:00:00Z");
  assert.equal(found.object.name, "stuck-widget");
  const encoded = await fetch(`${base}/api/v1/objects/${encodeURIComponent("uid-shop-stuck-widget")}`);
  assert.equal(encoded.status, 200);
  const refused = (await (
    await fetch(`${base}/api/v1/objects/uid-shop-stuck-widget?verbose=yes%21`)
  ).json()) as {
    error: Record<string, unknown>;
  };
  assert.deepEqual(
    [refused.error.parameter, refused.error.value, refused.error.expected],
    ["verbose", "yes!", "no query parameters here"],
  );
  const bare = await fetch(`${base}/api/v1/objects/`);
  assert.equal(bare.status, 404, "no uid is not an object");
  assert.match(((await bare.json()) as { error: { message: string } }).error.message, /no such API path/);
});

test("/api/v1/summary: now and the counts, filtered by the query", async (t) => {
  const base = await serveStatus(t, fixedSource(statusFleet()));
  type Summary = { now: string; kinds: { kind: string }[]; total: { total: number } };
  const all = (await (await fetch(`${base}/api/v1/summary`)).json()) as Summary;
  assert.equal(all.now, "2027-01-15T08:00:00Z");
  assert.deepEqual(
    all.kinds.map((k) => k.kind),
    ["Gadget", "Widget"],
  );
  const shop = (await (await fetch(`${base}/api/v1/summary?namespace=shop`)).json()) as Summary;
  assert.equal(all.total.total, statusFleet().length);
  assert.equal(shop.total.total, statusFleet().filter((v) => v.namespace === "shop").length);
  const bad = await fetch(`${base}/api/v1/summary?notReady=maybe`);
  assert.equal(bad.status, 400);
});

test("a refused method is named in the 405 with the methods allowed", async (t) => {
  const base = await serveStatus(t, fixedSource(statusFleet()));
  for (const method of ["POST", "DELETE"]) {
    const response = await fetch(`${base}/`, { method });
    assert.equal(response.status, 405);
    assert.equal(response.headers.get("allow"), "GET, HEAD");
    const error = ((await response.json()) as { error: { message: string } }).error;
    assert.equal(error.message, `${method} is not allowed here; use GET`);
  }
  const head = await fetch(`${base}/api/v1/objects`, { method: "HEAD" });
  assert.equal(head.status, 200);
});

test("only /, /favicon.ico and /api/... are the routes' paths; others pass to the next middleware", async (t) => {
  const base = await serveStatus(t, fixedSource(statusFleet()));
  for (const path of ["/api", "/apis/v1", "/index.html", "/favicon.icon"]) {
    const response = await fetch(`${base}${path}`, { method: "POST" });
    assert.equal(response.status, 404, path);
    assert.match(response.headers.get("content-type") ?? "", /^text\/plain/, path);
  }
});

/** The names of the objects listed on the page (its rows carry the object's uid). */
async function listed(base: string, query: string): Promise<{ status: number; names: string[] }> {
  const response = await fetch(`${base}/${query}`);
  const html = await response.text();
  const names = [...html.matchAll(/<th scope="row">([^<]+)<\/th>/g)].map((m) => m[1] ?? "");
  return { status: response.status, names: names.sort() };
}

test("the page's Show choices: attention by default, notReady, ready, all; another is a 400 listing them", async (t) => {
  const fleet = [
    view({ name: "fine-widget" }),
    view({ name: "down-widget", result: "Failed", ready: condition("Ready", "False") }),
  ];
  const base = await serveStatus(t, fixedSource(fleet));
  assert.deepEqual((await listed(base, "")).names, ["down-widget"]);
  assert.deepEqual((await listed(base, "?show=attention")).names, ["down-widget"]);
  assert.deepEqual((await listed(base, "?show=notReady")).names, ["down-widget"]);
  assert.deepEqual((await listed(base, "?show=ready")).names, ["fine-widget"]);
  assert.deepEqual((await listed(base, "?show=all")).names, ["down-widget", "fine-widget"]);
  assert.deepEqual(
    (await listed(base, "?notReady=false")).names,
    ["fine-widget"],
    "an explicit filter without show is not narrowed to attention",
  );
  assert.deepEqual(
    (await listed(base, "?show=ready&notReady=true")).names,
    ["fine-widget"],
    "a Show choice overrides the filter it sets",
  );
  const bad = await fetch(`${base}/?show=toString`);
  assert.equal(bad.status, 400);
  assert.match(
    await bad.text(),
    /show=(&quot;|")toString(&quot;|"): expected one of attention, notReady, ready, all/,
  );
});

test("trace ids are looked up for the objects shown that have none", async (t) => {
  const fleet = [
    view({ name: "a-widget" }),
    view({ name: "b-widget", traceId: "11111111111111111111111111111111" }),
  ];
  const asked: string[] = [];
  const source: ViewSource = {
    ...fixedSource(fleet),
    traceId: (v) => {
      asked.push(v.name);
      return "22222222222222222222222222222222";
    },
  };
  const base = await serveStatus(t, source, { traceUrl: "http://trace.example/{traceId}" });
  const page = (await (await fetch(`${base}/api/v1/objects?limit=500`)).json()) as {
    items: { name: string; links: { trace: string | null } }[];
  };
  assert.deepEqual(
    page.items.map((i) => [i.name, i.links.trace]),
    [
      ["a-widget", "http://trace.example/22222222222222222222222222222222"],
      ["b-widget", "http://trace.example/11111111111111111111111111111111"],
    ],
  );
  assert.deepEqual(asked, ["a-widget"]);
});
