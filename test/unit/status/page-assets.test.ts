// The page's inline style sheet and script and the Content-Security-Policy
// that admits exactly them: the policy's directives and its hashes of what
// the rendered page really inlines (a browser refuses anything else), no
// other inline code in the page, the style rules the markup relies on, and
// the script's auto-refresh run against a stand-in DOM (the browser test in
// test/e2e/status-page.test.ts runs it for real).
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, test } from "node:test";
import { runInNewContext } from "node:vm";
import { statusResults } from "../../../src/core/state.ts";
import { contentSecurityPolicy, pageCss, pageScript } from "../../../src/status/page/assets.ts";
import { renderStatusPage } from "../../../src/status/page/render.ts";
import { parseObjectQuery } from "../../../src/status/query-params.ts";
import { view, viewNow } from "../../support/views.ts";

const zero = {
  total: 0,
  results: Object.fromEntries(statusResults.map((r) => [r, 0])) as Record<
    (typeof statusResults)[number],
    number
  >,
  notReady: 0,
  lagging: 0,
  terminating: 0,
  flapping: 0,
};

/** A whole page with one object listed, as served. */
const page = renderStatusPage({
  now: viewNow,
  summary: { kinds: [], total: zero },
  params: new URLSearchParams(),
  query: parseObjectQuery(new URLSearchParams()),
  page: { items: [view({ name: "w1" })], total: 1, continueToken: undefined },
  error: undefined,
  kinds: [],
  settings: {
    flappingMinTransitions: 3,
    flappingWindowSeconds: 3600,
    links: { dashboardUrl: undefined, traceUrl: undefined },
    refreshSeconds: 30,
  },
});

const hashOf = (text: string): string => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;

describe("Content-Security-Policy", () => {
  test("allows nothing by default, the page's inline style and script by hash, same-origin fetches and forms", () => {
    const style = page.match(/<style>([\s\S]*?)<\/style>/)?.[1];
    const script = page.match(/<script>([\s\S]*?)<\/script>/)?.[1];
    assert.ok(style && script);
    assert.equal(
      contentSecurityPolicy,
      [
        "default-src 'none'",
        `style-src ${hashOf(style)}`,
        `script-src ${hashOf(script)}`,
        "connect-src 'self'",
        "img-src 'self'",
        "form-action 'self'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
      ].join("; "),
    );
  });

  test("the page has no other inline code the policy would have to allow", () => {
    assert.equal(page.match(/<script\b/g)?.length, 1);
    assert.equal(page.match(/<style\b/g)?.length, 1);
    assert.doesNotMatch(page, /\sstyle=/);
    assert.doesNotMatch(page, /\son[a-z]+=/);
    assert.doesNotMatch(page, /<iframe|javascript:/);
  });
});

describe("style sheet", () => {
  const rule = (selector: string): string | undefined => {
    const escaped = selector.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    return pageCss.match(new RegExp(`(?:^|[\\s,}])${escaped}(?:\\s*,[^{]*)?\\s*\\{([^}]*)\\}`, "m"))?.[1];
  };

  test("every status result has a rule, so the Status cell's class colours it", () => {
    for (const r of statusResults) assert.match(rule(`.${r}`) ?? "", /color: var\(--(bad|warn|good)\)/, r);
  });

  test("screen-reader-only text is clipped to a pixel, not hidden from assistive technology", () => {
    const sr = rule(".sr-only") ?? "";
    assert.match(sr, /position: absolute/);
    assert.match(sr, /width: 1px/);
    assert.match(sr, /overflow: hidden/);
    assert.doesNotMatch(sr, /display: none|visibility: hidden/);
  });

  test("light and dark schemes, and the narrow-screen layout of the objects table", () => {
    assert.match(pageCss, /color-scheme: light dark/);
    assert.match(pageCss, /@media \(prefers-color-scheme: dark\)/);
    assert.match(pageCss, /@media \(max-width: 48rem\)[\s\S]*table\.objects td\[data-label\]::before/);
  });
});

/** A stand-in for the few DOM parts the script touches, recording what it does. */
function runScript(init: { refresh?: string; toggle?: boolean; busy?: "hidden" | "form" | "details" } = {}) {
  const timers: { fn: () => void; ms: number }[] = [];
  const fetched: { url: string; headers: unknown }[] = [];
  const replaced: { id: string; by: unknown }[] = [];
  const looked: string[] = [];
  const listeners: Record<string, () => void> = {};
  const toggle = {
    hidden: true,
    textContent: "Pause auto-refresh",
    attributes: {} as Record<string, string>,
    addEventListener: (type: string, fn: () => void) => {
      listeners[type] = fn;
    },
    setAttribute(name: string, value: string) {
      this.attributes[name] = value;
    },
  };
  const section = (id: string) => ({ replaceWith: (by: unknown) => replaced.push({ id, by }) });
  const document = {
    body: { dataset: init.refresh === undefined ? {} : { refresh: init.refresh } },
    hidden: init.busy === "hidden",
    activeElement: init.busy === "form" ? { closest: (s: string) => (s === "form" ? {} : null) } : null,
    querySelector: (s: string) => (init.busy === "details" && s === "details[open]" ? {} : null),
    title: "old",
    getElementById(id: string) {
      looked.push(id);
      if (id === "auto-refresh") return init.toggle === false ? null : toggle;
      return section(id);
    },
    importNode: (node: unknown, deep: boolean) => ({ imported: node, deep }),
  };
  class DOMParser {
    parseFromString(text: string, type: string) {
      return {
        title: `new: ${text} as ${type}`,
        getElementById: (id: string) => (id === "summary" ? null : { fresh: id }),
      };
    }
  }
  const context = {
    document,
    DOMParser,
    location: { href: "http://status.example/?kind=Widget" },
    setTimeout: (fn: () => void, ms: number) => timers.push({ fn, ms }),
    fetch: async (url: string, options: { headers: unknown }) => {
      // Through JSON: an object made inside the context has the context's prototypes.
      fetched.push({ url, headers: JSON.parse(JSON.stringify(options.headers)) });
      return { ok: true, text: async () => "<p>fresh</p>" };
    },
  };
  runInNewContext(pageScript, context);
  return { timers, fetched, replaced, looked, toggle, listeners, document };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("auto-refresh script", () => {
  test("without a refresh interval, or without its button, it does nothing", () => {
    for (const run of [
      runScript(),
      runScript({ refresh: "0" }),
      runScript({ refresh: "30", toggle: false }),
    ]) {
      assert.equal(run.timers.length, 0);
      assert.equal(run.toggle.hidden, true);
    }
  });

  test("it shows the pause button and schedules a refresh after the interval", () => {
    const run = runScript({ refresh: "30" });
    assert.equal(run.toggle.hidden, false);
    assert.deepEqual(
      run.timers.map((t) => t.ms),
      [30_000],
    );
  });

  test("the button pauses and resumes, saying so and setting aria-pressed", async () => {
    const run = runScript({ refresh: "30" });
    run.listeners.click?.();
    assert.equal(run.toggle.textContent, "Resume auto-refresh");
    assert.deepEqual(run.toggle.attributes, { "aria-pressed": "true" });
    // Paused: the timer still runs but fetches nothing.
    run.timers[0]?.fn();
    await settle();
    assert.equal(run.fetched.length, 0);
    assert.equal(run.timers.length, 2);
    run.listeners.click?.();
    assert.equal(run.toggle.textContent, "Pause auto-refresh");
    assert.deepEqual(run.toggle.attributes, { "aria-pressed": "false" });
  });

  test("a refresh fetches the same URL as HTML, swaps in the fresh sections and title, and schedules the next", async () => {
    const run = runScript({ refresh: "5" });
    run.timers[0]?.fn();
    await settle();
    assert.deepEqual(run.fetched, [
      { url: "http://status.example/?kind=Widget", headers: { Accept: "text/html" } },
    ]);
    // "summary" is missing from the fresh page here: the current one stays.
    assert.deepEqual(run.replaced, [
      { id: "updated", by: { imported: { fresh: "updated" }, deep: true } },
      { id: "objects", by: { imported: { fresh: "objects" }, deep: true } },
    ]);
    assert.equal(run.document.title, "new: <p>fresh</p> as text/html");
    assert.deepEqual(
      run.timers.map((t) => t.ms),
      [5000, 5000],
    );
  });

  test("no refresh while the tab is hidden, a form field has focus or details are open", async () => {
    for (const busy of ["hidden", "form", "details"] as const) {
      const run = runScript({ refresh: "30", busy });
      run.timers[0]?.fn();
      await settle();
      assert.equal(run.fetched.length, 0, busy);
      assert.equal(run.timers.length, 2, busy);
    }
  });

  test("the sections and the button it looks for are on the page, with the interval", async () => {
    const run = runScript({ refresh: "30" });
    run.timers[0]?.fn();
    await settle();
    assert.deepEqual(run.looked.slice(0, 1), ["auto-refresh"]);
    for (const id of new Set(run.looked)) assert.match(page, new RegExp(` id="${id}"`), id);
    assert.deepEqual([...new Set(run.looked)].sort(), ["auto-refresh", "objects", "summary", "updated"]);
    assert.match(page, /<body data-refresh="30">/);
    assert.match(
      page,
      /<button type="button" id="auto-refresh" aria-pressed="false" hidden>Pause auto-refresh<\/button>/,
    );
  });
});
