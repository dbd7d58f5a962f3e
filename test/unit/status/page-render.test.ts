// The status page's HTML from small hand-made summaries: what a person reads
// (counts, headings, the view's name, a rejected filter) and where each count
// and control leads (links carrying the filters, a zero shown muted and not
// linked), names escaped. The browser test (test/e2e/status-page.test.ts)
// checks the page live; these check the markup without one.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type StatusResult, statusResults } from "../../../src/core/state.ts";
import { type PageModel, renderStatusPage } from "../../../src/status/page/render.ts";
import { parseObjectQuery, QueryError } from "../../../src/status/query-params.ts";
import type { KindSummary, Summary } from "../../../src/status/summary.ts";

type Counts = Omit<KindSummary, "group" | "version" | "kind" | "resource">;

function counts(
  init: Partial<Omit<Counts, "results">> & { results?: Partial<Record<StatusResult, number>> },
): Counts {
  const results = Object.fromEntries(statusResults.map((r) => [r, init.results?.[r] ?? 0])) as Record<
    StatusResult,
    number
  >;
  return {
    total: init.total ?? 0,
    results,
    notReady: init.notReady ?? 0,
    lagging: init.lagging ?? 0,
    terminating: init.terminating ?? 0,
    flapping: init.flapping ?? 0,
  };
}

function kindSummary(kind: string, group: string, init: Parameters<typeof counts>[0] = {}): KindSummary {
  return { kind, group, version: "v1", resource: `${kind.toLowerCase()}s`, ...counts(init) };
}

function summaryOf(kinds: KindSummary[], total: Parameters<typeof counts>[0] = {}): Summary {
  return { kinds, total: counts(total) };
}

const now = 1_800_000_000;

function model(init: Partial<PageModel> = {}): PageModel {
  const summary = init.summary ?? summaryOf([]);
  return {
    now,
    summary,
    params: new URLSearchParams(),
    query: undefined,
    page: undefined,
    error: undefined,
    kinds: summary.kinds,
    settings: {
      flappingMinTransitions: 3,
      flappingWindowSeconds: 3600,
      links: { dashboardUrl: undefined, traceUrl: undefined },
      refreshSeconds: 30,
    },
    ...init,
  };
}

const unescapeHtml = (s: string): string =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

/** The summary row of a kind, as its `<td>` cells in order. */
function summaryCells(page: string, kind: string): string[] {
  const rows = page.match(/<tr><th scope="row">[\s\S]*?<\/tr>/g) ?? [];
  const row = rows.find((r) => r.startsWith(`<tr><th scope="row">${kind}<br>`));
  assert.ok(row, `no summary row for ${kind}`);
  return row.match(/<td[\s\S]*?<\/td>/g) ?? [];
}

/** A cell's link as its parameters (in order), or undefined when the cell is not a link. */
function linkOf(cell: string): { path: string; params: [string, string][] } | undefined {
  const m = cell.match(/<a href="([^"]*)">/);
  if (!m) return undefined;
  const url = new URL(unescapeHtml(m[1] as string), "http://page");
  assert.equal(unescapeHtml(m[1] as string).startsWith("/"), true);
  return { path: url.pathname, params: [...url.searchParams] };
}

/** The options of a select: value, label and whether it is selected. */
function selectOptions(page: string, name: string): { value: string; label: string; selected: boolean }[] {
  const select = page.match(new RegExp(`<select id="f-${name}" name="${name}">([\\s\\S]*?)</select>`));
  assert.ok(select, `no select ${name}`);
  return [...(select[1] as string).matchAll(/<option value="([^"]*)"( selected)?>([^<]*)<\/option>/g)].map(
    (m) => ({
      value: unescapeHtml(m[1] as string),
      label: unescapeHtml(m[3] as string),
      selected: m[2] !== undefined,
    }),
  );
}

const selectedOf = (page: string, name: string): string[] =>
  selectOptions(page, name)
    .filter((o) => o.selected)
    .map((o) => o.value);

const widgets = kindSummary("Widget", "example.com", {
  total: 7,
  results: { Current: 3, InProgress: 2, Failed: 1, Terminating: 0, Unknown: 1 },
  lagging: 2,
  flapping: 4,
});

describe("status page summary table", () => {
  test("a kind's object count links to all its objects, Ready or not, by kind and group", () => {
    const page = renderStatusPage(model({ summary: summaryOf([widgets]) }));
    const cells = summaryCells(page, "Widget");
    assert.match(
      cells[0] as string,
      /^<td class="n"><a href="[^"]*">7<span class="sr-only"> Widget objects<\/span><\/a><\/td>$/,
    );
    assert.deepEqual(linkOf(cells[0] as string), {
      path: "/",
      params: [
        ["kind", "Widget"],
        ["group", "example.com"],
        ["notReady", ""],
      ],
    });
  });

  test("each status count links to the kind's objects with that result, labelled for screen readers", () => {
    const page = renderStatusPage(model({ summary: summaryOf([widgets]) }));
    const cells = summaryCells(page, "Widget");
    assert.equal(cells.length, 1 + statusResults.length + 2);
    statusResults.forEach((r, i) => {
      const cell = cells[1 + i] as string;
      const n = widgets.results[r];
      if (n === 0) return;
      assert.ok(cell.includes(`>${n}<span class="sr-only"> Widget ${r}</span>`), cell);
      assert.deepEqual(linkOf(cell)?.params, [
        ["kind", "Widget"],
        ["group", "example.com"],
        ["notReady", ""],
        ["result", r],
      ]);
    });
  });

  test("lagging and flapping counts link to the kind's lagging and flapping objects", () => {
    const page = renderStatusPage(model({ summary: summaryOf([widgets]) }));
    const cells = summaryCells(page, "Widget");
    const lagging = cells[1 + statusResults.length] as string;
    const flapping = cells[2 + statusResults.length] as string;
    assert.ok(lagging.includes(`>2<span class="sr-only"> Widget lagging</span>`), lagging);
    assert.deepEqual(linkOf(lagging)?.params, [
      ["kind", "Widget"],
      ["group", "example.com"],
      ["notReady", ""],
      ["lagging", "true"],
    ]);
    assert.ok(flapping.includes(`>4<span class="sr-only"> Widget flapping</span>`), flapping);
    assert.deepEqual(linkOf(flapping)?.params, [
      ["kind", "Widget"],
      ["group", "example.com"],
      ["notReady", ""],
      ["flapping", "true"],
    ]);
  });

  test("a zero count is shown muted and is not a link", () => {
    const empty = kindSummary("Gadget", "g.example.com");
    const page = renderStatusPage(model({ summary: summaryOf([empty]) }));
    const cells = summaryCells(page, "Gadget");
    assert.equal(cells.length, 1 + statusResults.length + 2);
    for (const cell of cells) {
      assert.equal(cell, '<td class="n muted">0</td>');
      assert.equal(linkOf(cell), undefined);
    }
    const terminating = summaryCells(renderStatusPage(model({ summary: summaryOf([widgets]) })), "Widget")[
      1 + statusResults.indexOf("Terminating")
    ];
    assert.equal(terminating, '<td class="n muted">0</td>');
  });

  test("the table heads a column per status result, then Lagging and Flapping", () => {
    const page = renderStatusPage(model({ summary: summaryOf([widgets]) }));
    const head = page.match(/<thead>([\s\S]*?)<\/thead>/)?.[1] ?? "";
    const columns = [...head.matchAll(/<th scope="col"[^>]*>([^<]*)<\/th>/g)].map((m) => m[1]);
    assert.deepEqual(columns, ["Kind", "Objects", ...statusResults, "Lagging", "Flapping"]);
  });

  test("with no kind watched the summary says so instead of an empty table", () => {
    const page = renderStatusPage(model());
    assert.ok(page.includes("<p>No resource is watched yet.</p>"));
    assert.ok(!page.includes('<table class="compact">'));
    const watched = renderStatusPage(model({ summary: summaryOf([widgets]) }));
    assert.ok(!watched.includes("No resource is watched yet."));
  });

  test("kind and group names are escaped in the row and in the links", () => {
    const odd = kindSummary("W<i>dget", "a&b.example.com", { total: 1 });
    const page = renderStatusPage(model({ summary: summaryOf([odd]) }));
    assert.ok(page.includes('<th scope="row">W&lt;i&gt;dget<br><small>a&amp;b.example.com</small></th>'));
    assert.ok(!page.includes("<i>"));
    const cells = summaryCells(page, "W&lt;i&gt;dget");
    assert.deepEqual(linkOf(cells[0] as string)?.params, [
      ["kind", "W<i>dget"],
      ["group", "a&b.example.com"],
      ["notReady", ""],
    ]);
  });
});

describe("status page header and footer", () => {
  test("the header counts watched, not Ready, lagging, terminating and flapping objects, as of now", () => {
    const page = renderStatusPage(
      model({
        summary: summaryOf([widgets], { total: 9, notReady: 4, lagging: 3, terminating: 2, flapping: 1 }),
      }),
    );
    assert.ok(page.includes("<title>4 not Ready of 9 · cr-status-exporter</title>"));
    assert.ok(
      page.includes(
        '9 objects watched · <strong class="bad">4 not Ready</strong> · 3 lagging · 2 terminating · 1 flapping · as of <time datetime="2027-01-15T08:00:00.000Z">',
      ),
      page.match(/<p id="updated">[^\n]*/)?.[0],
    );
  });

  test("no not Ready object: the not Ready count is not marked bad", () => {
    const page = renderStatusPage(model({ summary: summaryOf([widgets], { total: 9, notReady: 0 }) }));
    assert.ok(page.includes('<strong class="">0 not Ready</strong>'));
  });

  test("the footer links the same objects as JSON, with the page's filters", () => {
    const params = new URLSearchParams("kind=Widget&lagging=true");
    const query = parseObjectQuery(params);
    const page = renderStatusPage(
      model({ params, query, page: { items: [], total: 0, continueToken: undefined } }),
    );
    assert.ok(
      page.includes(
        'The same as JSON: <a href="/api/v1/objects?kind=Widget&amp;lagging=true">/api/v1/objects?kind=Widget&amp;lagging=true</a>',
      ),
    );
    const unfiltered = renderStatusPage(model());
    assert.ok(unfiltered.includes('The same as JSON: <a href="/api/v1/objects">/api/v1/objects</a>'));
  });
});

describe("status page objects section", () => {
  const titleOf = (query: string): string => {
    const params = new URLSearchParams(query);
    const page = renderStatusPage(
      model({
        params,
        query: parseObjectQuery(params),
        page: { items: [], total: 0, continueToken: undefined },
      }),
    );
    return page.match(/<h2 id="objects-h">([^<]*)<\/h2>/)?.[1] ?? "";
  };

  test("the objects heading says which objects the filter shows", () => {
    assert.equal(titleOf("notReady=true"), "Not Ready objects");
    assert.equal(titleOf("notReady=true&attention=true"), "Not Ready objects");
    assert.equal(titleOf("attention=true"), "Not Ready or flapping objects");
    assert.equal(titleOf("attention=false"), "Objects");
    assert.equal(titleOf("notReady=false"), "Ready objects");
    assert.equal(titleOf("notReady=false&attention=true"), "Not Ready or flapping objects");
    assert.equal(titleOf(""), "Objects");
    assert.equal(titleOf("kind=Widget"), "Objects");
  });

  test("a rejected filter is shown as an error instead of the objects", () => {
    const page = renderStatusPage(
      model({ params: new URLSearchParams("sort=<x>"), error: new QueryError("sort", "<x>", "one of name") }),
    );
    assert.match(page, /<p class="error" role="alert">Bad filter: [^<]*&lt;x&gt;/);
  });

  test("page links keep the filters and swap the continue token; the first page of no filter is /", () => {
    const params = new URLSearchParams("kind=Widget&continue=old");
    const page = renderStatusPage(
      model({ params, query: parseObjectQuery(params), page: { items: [], total: 5, continueToken: "new" } }),
    );
    assert.ok(page.includes('<a href="/?kind=Widget">First page</a>'), page.match(/<nav[^\n]*/)?.[0]);
    assert.ok(page.includes('<a href="/?kind=Widget&amp;continue=new" rel="next">Next page</a>'));

    const bare = new URLSearchParams("continue=old");
    const first = renderStatusPage(
      model({
        params: bare,
        query: parseObjectQuery(bare),
        page: { items: [], total: 5, continueToken: undefined },
      }),
    );
    assert.ok(first.includes('<a href="/">First page</a>'), first.match(/<nav[^\n]*/)?.[0]);
    assert.ok(!first.includes("Next page"));
  });
});

describe("status page filters form", () => {
  test("Show offers the four views and picks not Ready or flapping by default", () => {
    const page = renderStatusPage(model());
    assert.deepEqual(selectOptions(page, "show"), [
      { value: "attention", label: "not Ready or flapping", selected: true },
      { value: "notReady", label: "not Ready", selected: false },
      { value: "ready", label: "Ready", selected: false },
      { value: "all", label: "all", selected: false },
    ]);
  });

  test("Show follows the show parameter, else the notReady parameter", () => {
    const show = (q: string) =>
      selectedOf(renderStatusPage(model({ params: new URLSearchParams(q) })), "show");
    assert.deepEqual(show("show=ready"), ["ready"]);
    assert.deepEqual(show("show=all&notReady=true"), ["all"]);
    assert.deepEqual(show("notReady=true"), ["notReady"]);
    assert.deepEqual(show("notReady=false"), ["ready"]);
    assert.deepEqual(show("notReady="), ["all"]);
    assert.deepEqual(show("notReady=maybe"), ["all"]);
  });

  test("Kind lists each watched kind once, sorted, after any, with the chosen one selected", () => {
    const kinds = [
      kindSummary("Widget", "a.example.com"),
      kindSummary("Gadget", "b.example.com"),
      kindSummary("Widget", "c.example.com"),
    ];
    const page = renderStatusPage(model({ kinds, params: new URLSearchParams("kind=Widget") }));
    assert.deepEqual(selectOptions(page, "kind"), [
      { value: "", label: "any", selected: false },
      { value: "Gadget", label: "Gadget", selected: false },
      { value: "Widget", label: "Widget", selected: true },
    ]);
    assert.deepEqual(selectedOf(renderStatusPage(model({ kinds })), "kind"), [""]);
  });

  test("Status lists any and each result, with the chosen one selected", () => {
    const page = renderStatusPage(model({ params: new URLSearchParams("result=Failed") }));
    assert.deepEqual(
      selectOptions(page, "result").map((o) => [o.value, o.label, o.selected]),
      [["", "any", false], ...statusResults.map((r) => [r, r, r === "Failed"])],
    );
    assert.deepEqual(selectedOf(renderStatusPage(model()), "result"), [""]);
  });

  test("text filters are refilled from the parameters, escaped, with their hints", () => {
    const page = renderStatusPage(
      model({
        params: new URLSearchParams({
          namespace: "prod",
          name: 'a"b<c',
          condition: "Synced",
          reason: "Boom",
        }),
      }),
    );
    assert.ok(
      page.includes(
        '<label for="f-namespace">Namespace<input id="f-namespace" name="namespace" value="prod" placeholder="any"></label>',
      ),
    );
    assert.ok(
      page.includes(
        '<label for="f-name">Name contains<input id="f-name" name="name" value="a&quot;b&lt;c" placeholder=""></label>',
      ),
    );
    assert.ok(
      page.includes(
        '<label for="f-condition">Condition<input id="f-condition" name="condition" value="Synced" placeholder="Ready=False"></label>',
      ),
    );
    assert.ok(
      page.includes(
        '<label for="f-reason">Reason<input id="f-reason" name="reason" value="Boom" placeholder="any"></label>',
      ),
    );
    const empty = renderStatusPage(model());
    assert.ok(empty.includes('<input id="f-name" name="name" value="" placeholder="">'));
  });

  test("Lagging, Terminating and Flapping offer either, yes and no, with the chosen one selected", () => {
    const page = renderStatusPage(model({ params: new URLSearchParams("lagging=true&flapping=false") }));
    for (const [name, label] of [
      ["lagging", "Lagging"],
      ["terminating", "Terminating"],
      ["flapping", "Flapping"],
    ] as const) {
      assert.ok(page.includes(`<label for="f-${name}">${label}<select id="f-${name}" name="${name}">`), name);
      assert.deepEqual(
        selectOptions(page, name).map((o) => [o.value, o.label]),
        [
          ["", "either"],
          ["true", "yes"],
          ["false", "no"],
        ],
      );
    }
    assert.deepEqual(selectedOf(page, "lagging"), ["true"]);
    assert.deepEqual(selectedOf(page, "terminating"), [""]);
    assert.deepEqual(selectedOf(page, "flapping"), ["false"]);
  });

  test("Sort lists the sort orders and picks notReady unless told", () => {
    const page = renderStatusPage(model());
    assert.deepEqual(
      selectOptions(page, "sort").map((o) => o.value),
      ["notReady", "name", "kind", "lag", "flapping", "age"],
    );
    assert.deepEqual(selectedOf(page, "sort"), ["notReady"]);
    assert.deepEqual(
      selectedOf(renderStatusPage(model({ params: new URLSearchParams("sort=age") })), "sort"),
      ["age"],
    );
  });
});
