import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { namesKind } from "../../../src/status/kind-name.ts";
import { matches, runQuery } from "../../../src/status/query.ts";
import { emptyFilter, parseFilter, parseObjectQuery, QueryError } from "../../../src/status/query-params.ts";
import { summarize } from "../../../src/status/summary.ts";
import type { ObjectView } from "../../../src/status/view.ts";
import { condition, view, viewNow } from "../../support/views.ts";

const settings = { flappingMinTransitions: 3 };

// A small fleet with one object per situation the page must tell apart.
const fleet: ObjectView[] = [
  view({ name: "healthy" }),
  view({
    name: "stuck",
    result: "Failed",
    ready: condition("Ready", "False", { reason: "ImagePullBackOff", since: viewNow - 5000 }),
  }),
  view({
    name: "recent",
    result: "InProgress",
    ready: condition("Ready", "False", { reason: "Progressing", since: viewNow - 60 }),
  }),
  view({
    name: "lagging",
    namespace: "search",
    result: "InProgress",
    generation: 3,
    observedGeneration: 2,
    generationRequestedAt: viewNow - 900,
  }),
  view({ name: "leaving", namespace: "search", result: "Terminating", terminatingSince: viewNow - 300 }),
  view({ name: "flappy", transitionsInWindow: 5, labels: { app: "search" } }),
  view({
    name: "gadget-a",
    group: "ops.example.com",
    kind: "Gadget",
    namespace: "",
    result: "Unknown",
    ready: undefined,
    createdAt: viewNow - 100,
  }),
];

function names(query: string, defaults = {}): string[] {
  const q = parseObjectQuery(new URLSearchParams(query), undefined, defaults);
  return runQuery(fleet, q, settings).items.map((v) => v.name);
}

describe("filters", () => {
  const cases: [string, string, string[]][] = [
    ["kind, case-insensitive", "kind=gadget", ["gadget-a"]],
    ["group", "group=ops.example.com", ["gadget-a"]],
    ["namespace list", "namespace=search", ["leaving", "lagging"]],
    ["result", "result=Failed,unknown", ["stuck", "gadget-a"]],
    ["condition with status", "condition=Ready=False", ["stuck", "recent"]],
    ["condition present", "condition=Ready&namespace=search", ["leaving", "lagging"]],
    ["reason", "reason=ImagePullBackOff", ["stuck"]],
    ["lagging", "lagging=true", ["lagging"]],
    ["terminating", "terminating=true", ["leaving"]],
    ["flapping", "flapping=true", ["flappy"]],
    ["name substring, case-insensitive", "name=LAG", ["lagging"]],
    ["label selector on allow-listed labels", "labelSelector=app%3Dsearch", ["flappy"]],
    ["filters combine", "namespace=shop&notReady=true&reason=Progressing", ["recent"]],
    ["empty values are no filter", "kind=&namespace=&lagging=", fleet.map((v) => v.name).sort()],
  ];
  for (const [title, query, expected] of cases) {
    test(title, () => assert.deepEqual(names(query).sort(), [...expected].sort()));
  }

  test("not Ready: everything but Current, longest first", () => {
    assert.deepEqual(names("notReady=true"), ["stuck", "lagging", "leaving", "gadget-a", "recent"]);
  });

  test("the page's default (notReady) applies only when the parameter is absent", () => {
    assert.equal(names("", { notReady: true }).length, 5);
    assert.equal(names("notReady=false", { notReady: true }).length, 2);
  });
});

describe("sort", () => {
  const cases: [string, string[]][] = [
    ["notReady", ["stuck", "lagging", "leaving", "gadget-a", "recent", "flappy", "healthy"]],
    ["name", ["gadget-a", "lagging", "leaving", "flappy", "healthy", "recent", "stuck"]],
    ["kind", ["gadget-a", "lagging", "leaving", "flappy", "healthy", "recent", "stuck"]],
    ["lag", ["lagging", "gadget-a", "leaving", "flappy", "healthy", "recent", "stuck"]],
    ["flapping", ["flappy", "gadget-a", "lagging", "leaving", "healthy", "recent", "stuck"]],
    ["age", ["lagging", "leaving", "flappy", "healthy", "recent", "stuck", "gadget-a"]],
  ];
  for (const [sort, expected] of cases) {
    test(sort, () => assert.deepEqual(names(`sort=${sort}`), expected));
  }
});

describe("pages", () => {
  const many = Array.from({ length: 25 }, (_, i) =>
    view({ name: `w${String(i).padStart(2, "0")}`, createdAt: viewNow - 1000 + i }),
  );

  test("walking the continue tokens returns every object once, in order", () => {
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const q = parseObjectQuery(
        new URLSearchParams({ sort: "age", limit: "10", ...(token && { continue: token }) }),
      );
      const page = runQuery(many, q, settings);
      assert.equal(page.total, 25);
      seen.push(...page.items.map((v) => v.name));
      token = page.continueToken;
      pages++;
    } while (token);
    assert.equal(pages, 3);
    assert.deepEqual(
      seen,
      many.map((v) => v.name),
    );
  });

  test("an object added before the cursor is not repeated and none after it is skipped", () => {
    const q1 = parseObjectQuery(new URLSearchParams({ sort: "name", limit: "10" }));
    const first = runQuery(many, q1, settings);
    const grown = [...many, view({ name: "w00a" }), view({ name: "w99" })];
    const q2 = parseObjectQuery(
      new URLSearchParams({ sort: "name", limit: "100", continue: first.continueToken ?? "" }),
    );
    const rest = runQuery(grown, q2, settings).items.map((v) => v.name);
    assert.equal(rest[0], "w10");
    assert.equal(rest.at(-1), "w99");
    assert.ok(!rest.includes("w00a"));
  });

  test("a token is tied to its sort order", () => {
    const token = runQuery(
      many,
      parseObjectQuery(new URLSearchParams("limit=5&sort=age")),
      settings,
    ).continueToken;
    const q = parseObjectQuery(new URLSearchParams({ sort: "name", continue: token ?? "" }));
    assert.throws(
      () => runQuery(many, q, settings),
      (e: unknown) => e instanceof QueryError && e.parameter === "continue",
    );
  });

  test("the last page has no token", () => {
    const page = runQuery(many, parseObjectQuery(new URLSearchParams("limit=25")), settings);
    assert.equal(page.items.length, 25);
    assert.equal(page.continueToken, undefined);
  });
});

describe("bad parameters name the parameter, the value and what was expected", () => {
  const cases: [string, string, string, RegExp][] = [
    ["limit=0", "limit", "0", /integer from 1 to 500/],
    ["limit=501", "limit", "501", /integer from 1 to 500/],
    ["limit=ten", "limit", "ten", /integer/],
    ["sort=size", "sort", "size", /one of notReady, name/],
    ["result=Broken", "result", "Broken", /one of Current, InProgress/],
    ["condition=Ready=Maybe", "condition", "Ready=Maybe", /=True, =False or =Unknown/],
    ["lagging=yes", "lagging", "yes", /true or false/],
    ["namesapce=shop", "namesapce", "shop", /a known parameter/],
    ["labelSelector=a%20in%20(b)", "labelSelector", "a in (b)", /unsupported label selector/],
    ["continue=garbage", "continue", "garbage", /previous page/],
  ];
  for (const [query, parameter, value, expected] of cases) {
    test(query, () => {
      assert.throws(
        () => runQuery(fleet, parseObjectQuery(new URLSearchParams(query)), settings),
        (e: unknown) =>
          e instanceof QueryError &&
          e.parameter === parameter &&
          e.value === value &&
          expected.test(e.message),
      );
    });
  }

  test("the summary takes filters but no paging", () => {
    assert.throws(() => parseFilter(new URLSearchParams("limit=5")), /limit/);
  });
});

describe("summary", () => {
  test("counts per kind × result, with the not-Ready, lagging, terminating and flapping totals", () => {
    const kinds = [
      { group: "example.com", version: "v1", kind: "Widget", resource: "widgets" },
      { group: "ops.example.com", version: "v1", kind: "Gadget", resource: "gadgets" },
      { group: "example.com", version: "v1", kind: "Sprocket", resource: "sprockets" },
    ];
    const s = summarize(kinds, fleet, undefined, settings);
    assert.deepEqual(
      s.kinds.map((k) => [
        k.kind,
        k.total,
        k.results.Current,
        k.results.Failed,
        k.results.InProgress,
        k.notReady,
      ]),
      [
        ["Gadget", 1, 0, 0, 0, 1],
        ["Sprocket", 0, 0, 0, 0, 0],
        ["Widget", 6, 2, 1, 2, 4],
      ],
    );
    assert.deepEqual(
      { ...s.total, results: undefined },
      { total: 7, notReady: 5, lagging: 1, terminating: 1, flapping: 1, results: undefined },
    );
  });

  test("a filter narrows the counts and the kinds listed", () => {
    const s = summarize([], fleet, parseFilter(new URLSearchParams("namespace=search")), settings);
    assert.deepEqual(
      s.kinds.map((k) => [k.kind, k.total, k.results.Terminating]),
      [["Widget", 2, 1]],
    );
  });
});

describe("kind names", () => {
  const widget = { group: "example.com", kind: "Widget", resource: "widgets" };
  for (const name of ["Widget", "widget", "widgets", "Widgets.example.com", "Widget.example.com"]) {
    test(`${name} names the Widget kind`, () => assert.equal(namesKind(widget, name), true));
  }
  for (const name of ["Widgetz", "widgets.other.com", "example.com", "widgets.example", ""]) {
    test(`${JSON.stringify(name)} does not`, () => assert.equal(namesKind(widget, name), false));
  }
  test("?kind= takes the plural on the page and the API too", () => {
    const views = [view({ name: "w" }), view({ name: "g", kind: "Gadget" })];
    const filter = { ...emptyFilter(), kinds: ["gadgets.example.com"] };
    assert.deepEqual(
      views.filter((v) => matches(v, filter, settings)).map((v) => v.name),
      ["g"],
    );
  });
});
