import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { namesKind } from "../../../src/status/kind-name.ts";
import { compareKeys, matches, runQuery } from "../../../src/status/query.ts";
import {
  emptyFilter,
  filterToParams,
  parseFilter,
  parseObjectQuery,
  QueryError,
} from "../../../src/status/query-params.ts";
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

describe("parameters at their edges", () => {
  test("limit: 1 and the maximum are taken, 10 digits or a sign are not; the default page size otherwise", () => {
    const limit = (value: string | undefined, limits = { defaultPageSize: 7, maxPageSize: 9 }) =>
      parseObjectQuery(new URLSearchParams(value === undefined ? "" : { limit: value }), limits).limit;
    assert.equal(limit("1"), 1);
    assert.equal(limit("9"), 9);
    assert.equal(limit(" 9 "), 9, "trimmed");
    assert.equal(limit(undefined), 7);
    assert.equal(limit(""), 7);
    assert.equal(parseObjectQuery(new URLSearchParams()).limit, 100, "100 by default, 500 at most");
    assert.equal(parseObjectQuery(new URLSearchParams("limit=500")).limit, 500);
    for (const bad of ["0000000001x", "1234567890", "+5", "5.0", "10"]) {
      assert.throws(
        () => limit(bad),
        (e: unknown) =>
          e instanceof QueryError &&
          e.message === `query parameter limit=${JSON.stringify(bad)}: expected an integer from 1 to 9`,
        bad,
      );
    }
  });

  test("a single-valued parameter takes its last non-empty value, trimmed; lists split on commas and drop blanks", () => {
    const q = parseObjectQuery(
      new URLSearchParams("name=a&name= b &name=&kind= x , ,y&kind=z&sort=name&sort=kind"),
    );
    assert.equal(q.filter.name, "b");
    assert.deepEqual(q.filter.kinds, ["x", "y", "z"]);
    assert.equal(q.sort, "kind");
    assert.equal(q.continueToken, undefined);
  });

  test("flags are true or false exactly; the defaults fill only absent flags", () => {
    const q = parseObjectQuery(new URLSearchParams("lagging=false&terminating=true"), undefined, {
      notReady: false,
      attention: true,
    });
    assert.deepEqual(
      [q.filter.lagging, q.filter.terminating, q.filter.flapping, q.filter.notReady, q.filter.attention],
      [false, true, undefined, false, true],
    );
    const given = parseObjectQuery(new URLSearchParams("attention=false&notReady=true"), undefined, {
      notReady: false,
      attention: true,
    });
    assert.deepEqual([given.filter.notReady, given.filter.attention], [true, false]);
    assert.throws(() => parseFilter(new URLSearchParams("flapping=True")), /expected true or false/);
    assert.throws(() => parseFilter(new URLSearchParams("attention=1")), /expected true or false/);
  });

  test("conditions: a type with an optional status in any case; anything else is refused whole", () => {
    assert.deepEqual(
      parseFilter(new URLSearchParams("condition=Ready=true,Synced=UNKNOWN,a.b_c-1")).conditions,
      [
        { type: "Ready", status: "True" },
        { type: "Synced", status: "Unknown" },
        { type: "a.b_c-1", status: undefined },
      ],
    );
    for (const bad of ["Ready=", "=True", "Ready=True=False", "Re ady", "Ready=1"]) {
      assert.throws(
        () => parseFilter(new URLSearchParams({ condition: bad })),
        (e: unknown) => e instanceof QueryError && e.parameter === "condition" && e.value === bad,
        bad,
      );
    }
  });

  test("results in any case, named by their canonical spelling", () => {
    assert.deepEqual(parseFilter(new URLSearchParams("result=current,INPROGRESS")).results, [
      "Current",
      "InProgress",
    ]);
  });

  test("a QueryError names the parameter, the value and what was expected", () => {
    const error = new QueryError("sort", "size", "one of a, b");
    assert.equal(error.message, 'query parameter sort="size": expected one of a, b');
    assert.deepEqual([error.parameter, error.value, error.expected], ["sort", "size", "one of a, b"]);
    assert.throws(() => parseFilter(new URLSearchParams("bogus=1")), {
      message:
        'query parameter bogus="1": expected a known parameter (kind, group, namespace, result, condition, reason, notReady, attention, lagging, terminating, flapping, name, labelSelector)',
    });
  });

  test("filterToParams is parseFilter's inverse", () => {
    const text =
      "kind=Widget%2CGadget&group=example.com&namespace=shop&result=Failed&condition=Ready%3DFalse%2CSynced&reason=X&notReady=true&attention=false&lagging=true&terminating=false&flapping=true&name=w&labelSelector=app%3Dweb";
    const filter = parseFilter(new URLSearchParams(text));
    assert.equal(filterToParams(filter).toString(), text);
    assert.deepEqual(parseFilter(filterToParams(filter)), filter);
    assert.equal(filterToParams(emptyFilter()).toString(), "");
  });
});

describe("keys and pages at their edges", () => {
  test("keys compare element by element: numbers before strings, a shorter key first when equal so far", () => {
    assert.equal(compareKeys([1, "a"], [1, "a"]), 0);
    assert.equal(compareKeys([1, "a"], [2, "a"]), -1);
    assert.equal(compareKeys([2], [1, "z"]), 1);
    assert.equal(compareKeys(["b"], ["a", 1]), 1);
    assert.equal(compareKeys([5], ["a"]), -1);
    assert.equal(compareKeys(["a"], [5]), 1);
    assert.ok(compareKeys([1], [1, 2]) < 0);
    assert.ok(compareKeys([1, 2], [1]) > 0);
  });

  test("a page of exactly the matches has no token; one more match gives one; totals count every match", () => {
    const views = Array.from({ length: 6 }, (_, i) => view({ name: `w${i}` }));
    const page = (limit: number, of = views) =>
      runQuery(of, parseObjectQuery(new URLSearchParams({ sort: "name", limit: String(limit) })), settings);
    assert.equal(page(6).continueToken, undefined);
    assert.equal(page(6).items.length, 6);
    const five = page(5);
    assert.deepEqual(
      five.items.map((v) => v.name),
      ["w0", "w1", "w2", "w3", "w4"],
    );
    assert.equal(five.total, 6);
    assert.ok(five.continueToken);
    // Fed in reverse, the smallest keys are still the ones kept.
    assert.deepEqual(
      page(2, [...views].reverse()).items.map((v) => v.name),
      ["w0", "w1"],
    );
    const token = page(2).continueToken ?? "";
    const next = runQuery(
      [...views].reverse(),
      parseObjectQuery(new URLSearchParams({ sort: "name", limit: "2", continue: token })),
      settings,
    );
    assert.deepEqual(
      next.items.map((v) => v.name),
      ["w2", "w3"],
    );
    assert.equal(next.total, 6, "the total counts the matches before the token too");
  });

  test("a continue token that is not base64 JSON, or whose key holds other values, is refused", () => {
    const bad = [
      "%%%",
      Buffer.from(JSON.stringify({ s: "name", k: [{}] })).toString("base64url"),
      Buffer.from(JSON.stringify({ s: "name", k: "w1" })).toString("base64url"),
      Buffer.from(JSON.stringify({ s: "name" })).toString("base64url"),
      Buffer.from("null").toString("base64url"),
    ];
    for (const token of bad) {
      assert.throws(
        () =>
          runQuery(fleet, parseObjectQuery(new URLSearchParams({ sort: "name", continue: token })), settings),
        (e: unknown) =>
          e instanceof QueryError &&
          e.message ===
            `query parameter continue=${JSON.stringify(token)}: expected a token from a previous page of the same query (sort=name); start again without it`,
        token,
      );
    }
  });

  test("the lag sort puts lagging objects first by when their generation was asked for, an unknown time first of all", () => {
    const views = [
      view({ name: "caught-up" }),
      view({ name: "late", generation: 2, observedGeneration: 1, generationRequestedAt: viewNow - 10 }),
      view({ name: "early", generation: 2, observedGeneration: 1, generationRequestedAt: viewNow - 100 }),
      view({ name: "unknown", generation: 2, observedGeneration: 1, generationRequestedAt: undefined }),
    ];
    assert.deepEqual(
      runQuery(views, parseObjectQuery(new URLSearchParams("sort=lag")), settings).items.map((v) => v.name),
      ["unknown", "early", "late", "caught-up"],
    );
  });
});
