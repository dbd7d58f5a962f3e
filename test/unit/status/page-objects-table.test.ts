// The objects table of the status page, cell by cell, from hand-made views:
// the count line and the page links, each column's exact markup (status notes,
// reason and message only while not Ready, since, generation lag, links), the
// folded conditions and history (newest first, transitions in words), and
// every piece of object text escaped. page-render.test.ts covers the page
// around the table; the browser test covers how it looks.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { OutputSettings } from "../../../src/status/json.ts";
import { objectsTable } from "../../../src/status/page/objects-table.ts";
import type { ObjectView, TransitionRecord } from "../../../src/status/view.ts";
import { condition, viewNow as now, view } from "../../support/views.ts";

const settings: OutputSettings = {
  flappingMinTransitions: 3,
  flappingWindowSeconds: 3600,
  links: { dashboardUrl: undefined, traceUrl: undefined },
};

function table(
  items: ObjectView[],
  opts: { total?: number; next?: string; first?: string; settings?: OutputSettings; title?: string } = {},
): string {
  return objectsTable(
    { items, total: opts.total ?? items.length, continueToken: undefined },
    opts.title ?? "Objects",
    now,
    opts.settings ?? settings,
    opts.next,
    opts.first,
  ).text;
}

type Column = "Kind" | "Namespace" | "Name" | "Status" | "Reason" | "Message" | "Since" | "Lag" | "Links";

/** The one row's cells by their data-label (the name, a <th>, as "Name"). */
function cellsOf(v: ObjectView, s: OutputSettings = settings): Record<Column, string> {
  const page = table([v], { settings: s });
  const rows = page.match(/<tr>\n[\s\S]*?\n<\/tr>/g) ?? [];
  assert.equal(rows.length, 1);
  const row = rows[0] as string;
  const cells: Record<string, string> = {};
  for (const m of row.matchAll(/<td data-label="([^"]+)"[^>]*>([\s\S]*?)<\/td>\n/g)) {
    cells[m[1] as string] = m[2] as string;
  }
  cells.Name = row.match(/<th scope="row">([\s\S]*?)<\/th>/)?.[1] ?? "";
  assert.deepEqual(Object.keys(cells), [
    "Kind",
    "Namespace",
    "Status",
    "Reason",
    "Message",
    "Since",
    "Lag",
    "Links",
    "Name",
  ]);
  return cells as Record<Column, string>;
}

/** The Message cell without its folded details. */
const messageOf = (v: ObjectView): string => cellsOf(v).Message.replace(/<details>[\s\S]*$/, "");
const detailsOf = (v: ObjectView): string => cellsOf(v).Message.replace(/^[\s\S]*?(?=<details>)/, "");

const notReady = (reason: string, message: string, extra: Partial<ObjectView> = {}): ObjectView => {
  const ready = condition("Ready", "False", { reason, message, since: now - 600 });
  return view({ name: "w1", result: "InProgress", ready, conditions: [ready], ...extra });
};

describe("objects table: count and page links", () => {
  test("no match: the count says so and there is neither table nor page links", () => {
    assert.equal(
      table([], { total: 0 }),
      '<section id="objects" aria-labelledby="objects-h">\n<h2 id="objects-h">Objects</h2>\n<p>No object matches.</p>\n\n\n</section>',
    );
  });

  test("the count is singular for one match and says whether the page shows them all", () => {
    const one = view({ name: "w1" });
    assert.ok(table([one]).includes("<p>1 match; all shown.</p>"));
    assert.ok(table([one, view({ name: "w2" })]).includes("<p>2 matches; all shown.</p>"));
    assert.ok(
      table([one, view({ name: "w2" })], { total: 5 }).includes("<p>5 matches; 2 shown on this page.</p>"),
    );
  });

  test("the table's caption repeats title and count for screen readers, title escaped", () => {
    const page = table([view({ name: "w1" })], { total: 3, title: "Not <Ready> & co" });
    assert.ok(page.includes('<h2 id="objects-h">Not &lt;Ready&gt; &amp; co</h2>'));
    assert.ok(
      page.includes(
        '<caption class="sr-only">Not &lt;Ready&gt; &amp; co: 3 matches; 1 shown on this page.</caption>',
      ),
    );
  });

  test("matches beyond the last page: the count stays, no empty table", () => {
    const page = table([], { total: 3, first: "/" });
    assert.ok(page.includes("<p>3 matches; 0 shown on this page.</p>"));
    assert.ok(!page.includes("<table"));
  });

  test("the table heads its nine columns and has a row per object, in the page's order", () => {
    const page = table([view({ name: "b" }), view({ name: "a" }), view({ name: "c" })]);
    const head = page.match(/<thead>([\s\S]*?)<\/thead>/)?.[1] ?? "";
    assert.deepEqual(
      [...head.matchAll(/<th scope="col">([^<]*)<\/th>/g)].map((m) => m[1]),
      ["Kind", "Namespace", "Name", "Status", "Reason", "Message", "Since", "Lag", "Links"],
    );
    assert.deepEqual(
      [...page.matchAll(/<th scope="row">([^<]*)<\/th>/g)].map((m) => m[1]),
      ["b", "a", "c"],
    );
    assert.ok(page.includes('<div class="scroll"><table class="objects">'));
  });

  test("page links: first and next as told, escaped; none at all without either", () => {
    const items = [view({ name: "w1" })];
    const nav = (next?: string, first?: string) =>
      table(items, { total: 9, next, first }).match(/<nav[\s\S]*?<\/nav>/)?.[0];
    assert.equal(
      nav("/?a=1&continue=x", "/?a=1"),
      '<nav class="pages" aria-label="Pages"><a href="/?a=1">First page</a><a href="/?a=1&amp;continue=x" rel="next">Next page</a></nav>',
    );
    assert.equal(
      nav("/?continue=x"),
      '<nav class="pages" aria-label="Pages"><a href="/?continue=x" rel="next">Next page</a></nav>',
    );
    assert.equal(
      nav(undefined, "/"),
      '<nav class="pages" aria-label="Pages"><a href="/">First page</a></nav>',
    );
    assert.equal(nav(), undefined);
    assert.ok(table(items).endsWith("</table></div>\n\n</section>"));
  });
});

describe("objects table: identity and links", () => {
  test("kind over group, namespace, name; object text escaped", () => {
    const cells = cellsOf(view({ name: "w<1>", kind: "Wid&get", group: "a.example.com", namespace: "n's" }));
    assert.equal(cells.Kind, "Wid&amp;get<br><small>a.example.com</small>");
    assert.equal(cells.Namespace, "n&#39;s");
    assert.equal(cells.Name, "w&lt;1&gt;");
  });

  test("a cluster-scoped object's namespace reads (cluster), muted", () => {
    assert.equal(
      cellsOf(view({ name: "w1", namespace: "" })).Namespace,
      '<span class="muted">(cluster)</span>',
    );
  });

  test("without link templates only the JSON link, its uid URL-encoded", () => {
    assert.equal(
      cellsOf(view({ name: "w1", uid: "a/b c" })).Links,
      '<a href="/api/v1/objects/a%2Fb%20c">JSON<span class="sr-only"> of w1</span></a>',
    );
  });

  test("dashboard and trace links come first when templates and a trace id give them", () => {
    const withLinks: OutputSettings = {
      ...settings,
      links: {
        dashboardUrl: "https://g.example/d?n={name}&k={kind}",
        traceUrl: "https://t.example/{traceId}",
      },
    };
    assert.equal(
      cellsOf(view({ name: "w1", uid: "u1", traceId: "abc" }), withLinks).Links,
      '<a href="https://g.example/d?n=w1&amp;k=Widget">Dashboard<span class="sr-only"> of w1</span></a><br>' +
        '<a href="https://t.example/abc">Trace<span class="sr-only"> of w1</span></a><br>' +
        '<a href="/api/v1/objects/u1">JSON<span class="sr-only"> of w1</span></a>',
    );
    assert.equal(
      cellsOf(view({ name: "w1", uid: "u1" }), withLinks).Links,
      '<a href="https://g.example/d?n=w1&amp;k=Widget">Dashboard<span class="sr-only"> of w1</span></a><br>' +
        '<a href="/api/v1/objects/u1">JSON<span class="sr-only"> of w1</span></a>',
    );
  });
});

describe("objects table: status cell", () => {
  test("a Ready object: its result, then the readiness condition", () => {
    assert.equal(
      cellsOf(view({ name: "w1" })).Status,
      '<span class="Current">Current</span><br><small>Ready=True</small>',
    );
  });

  test("no readiness condition, or no status at all (marked)", () => {
    const synced = condition("Synced", "True");
    assert.equal(
      cellsOf(view({ name: "w1", result: "Unknown", ready: undefined, conditions: [synced] })).Status,
      '<span class="Unknown">Unknown</span><br><small>no readiness condition</small>',
    );
    const bare = view({
      name: "w1",
      result: "Unknown",
      ready: undefined,
      conditions: [],
      observedGeneration: undefined,
    });
    assert.equal(
      cellsOf(bare).Status,
      '<span class="Unknown">Unknown</span><br><small class="mark">status not written yet</small>',
    );
  });

  test("the phase is marked under the condition, escaped", () => {
    assert.equal(
      cellsOf(view({ name: "w1", phase: "Run<ning>" })).Status,
      '<span class="Current">Current</span><br><small>Ready=True</small><br><small class="mark">phase Run&lt;ning&gt;</small>',
    );
  });

  test("flapping from the configured number of changes on, saying the count, the window and where it is set", () => {
    const flapping = cellsOf(view({ name: "w1", transitionsInWindow: 3 })).Status;
    assert.equal(
      flapping,
      '<span class="Current">Current</span><br><small>Ready=True</small><br><span class="mark warn" title="3 condition status changes in the last 60m; the page calls 3 or more flapping (statusPage.flappingTransitions and flappingWindow); the CustomResourceReadyFlapping alert counts Ready changes over its own window">Flapping: 3 changes in 60m</span>',
    );
    assert.equal(
      cellsOf(view({ name: "w1", transitionsInWindow: 2 })).Status,
      '<span class="Current">Current</span><br><small>Ready=True</small>',
    );
  });

  test("the latest Warning event: reason, how long ago and the message, all escaped, the time in the title", () => {
    const warning = { reason: "Back<Off>", message: 'pull "x" & fail', at: now - 300 };
    assert.equal(
      cellsOf(view({ name: "w1", warning })).Status,
      '<span class="Current">Current</span><br><small>Ready=True</small><br><small class="warning-event" title="Kubernetes Warning event Back&lt;Off&gt; at 2027-01-15 07:55:00 UTC: pull &quot;x&quot; &amp; fail"><span class="warn">Warning Back&lt;Off&gt;</span> 5m ago: pull &quot;x&quot; &amp; fail</small>',
    );
    const bare = cellsOf(
      view({ name: "w1", warning: { reason: "Failed", message: "", at: now - 30 } }),
    ).Status;
    assert.ok(bare.endsWith('<span class="warn">Warning Failed</span> 30s ago</small>'), bare);
  });

  test("a Warning event stamped after now (clock skew) reads 0s ago", () => {
    const status = cellsOf(view({ name: "w1", warning: { reason: "R", message: "", at: now + 50 } })).Status;
    assert.ok(status.endsWith("</span> 0s ago</small>"), status);
  });
});

describe("objects table: reason and message", () => {
  test("a not Ready object shows its Ready condition's reason and message, escaped", () => {
    const cells = cellsOf(notReady("Bad<Config>", "key 'a' & <b>"));
    assert.equal(cells.Reason, "Bad&lt;Config&gt;");
    assert.ok(cells.Message.startsWith("key &#39;a&#39; &amp; &lt;b&gt;<details>"), cells.Message);
  });

  test("a Ready object's reason and message are not repeated in the row", () => {
    const ready = condition("Ready", "True", { reason: "AllGood", message: "fine" });
    const cells = cellsOf(view({ name: "w1", ready, conditions: [ready] }));
    assert.equal(cells.Reason, "");
    assert.equal(messageOf(view({ name: "w1", ready, conditions: [ready] })), "");
  });

  test("a lagging object without a message says which generation waits and what the status is at", () => {
    assert.equal(
      messageOf(view({ name: "w1", generation: 3, observedGeneration: 2 })),
      '<span class="muted">generation 3 not observed yet (status at 2)</span>',
    );
    const ready = condition("Ready", "True", { observedGeneration: 1 });
    assert.equal(
      messageOf(
        view({ name: "w1", generation: 2, observedGeneration: undefined, ready, conditions: [ready] }),
      ),
      '<span class="muted">generation 2 not observed yet (status at none)</span>',
    );
  });

  test("no waiting note for an object caught up, nor over a message", () => {
    assert.equal(messageOf(view({ name: "w1" })), "");
    assert.equal(messageOf(notReady("R", "m", { generation: 3, observedGeneration: 2 })), "m");
    assert.equal(
      messageOf(notReady("R", "", { generation: 3, observedGeneration: 2 })),
      '<span class="muted">generation 3 not observed yet (status at 2)</span>',
    );
  });
});

describe("objects table: since and lag", () => {
  test("since: how long ago, with the absolute UTC time under it", () => {
    // Ready since the Ready condition's transition; not Ready since its own.
    assert.equal(
      cellsOf(view({ name: "w1" })).Since,
      '<time datetime="2027-01-15T07:00:00.000Z">60m</time><br><small>2027-01-15 07:00:00 UTC</small>',
    );
    assert.equal(
      cellsOf(notReady("R", "m")).Since,
      '<time datetime="2027-01-15T07:50:00.000Z">10m</time><br><small>2027-01-15 07:50:00 UTC</small>',
    );
  });

  test("since unknown: a muted dash", () => {
    const ready = condition("Ready", "True", { since: undefined });
    assert.equal(
      cellsOf(view({ name: "w1", ready, conditions: [ready] })).Since,
      '<span class="muted">—</span>',
    );
  });

  test("not lagging: a muted dash", () => {
    assert.equal(cellsOf(view({ name: "w1" })).Lag, '<span class="muted">—</span>');
  });

  test("lagging: generations behind and how long the generation has waited", () => {
    assert.equal(
      cellsOf(view({ name: "w1", generation: 4, observedGeneration: 2, generationRequestedAt: now - 600 }))
        .Lag,
      '<span class="warn">2 gen</span><br><small>for 10m</small>',
    );
  });

  test("lagging with no time asked: no wait shown; behind only by the Ready condition: stale", () => {
    assert.equal(
      cellsOf(view({ name: "w1", generation: 4, observedGeneration: 3, generationRequestedAt: undefined }))
        .Lag,
      '<span class="warn">1 gen</span>',
    );
    const ready = condition("Ready", "True", { observedGeneration: 1 });
    const stale = view({
      name: "w1",
      generation: 2,
      observedGeneration: undefined,
      ready,
      conditions: [ready],
    });
    assert.equal(cellsOf(stale).Lag, '<span class="warn">stale</span><br><small>for 120m</small>');
  });
});

describe("objects table: folded details", () => {
  test("the summary counts conditions and recent changes, singular for one", () => {
    const summary = (v: ObjectView) => detailsOf(v).match(/<summary>([^<]*)<\/summary>/)?.[1];
    const t: TransitionRecord = { at: now - 60, what: "terminating" };
    assert.equal(
      summary(view({ name: "w1", ready: undefined, conditions: [] })),
      "0 conditions, 0 recent changes",
    );
    assert.equal(summary(view({ name: "w1", recentTransitions: [t] })), "1 condition, 1 recent change");
    const two = [condition("Ready", "True"), condition("Synced", "True")];
    assert.equal(
      summary(view({ name: "w1", conditions: two, recentTransitions: [t, t] })),
      "2 conditions, 2 recent changes",
    );
  });

  test("each condition: type, status, reason, since and message, escaped; absent parts left out", () => {
    const ready = condition("Ready", "False", { reason: "Bad", message: "a <b> & 'c'", since: now - 60 });
    const synced = condition("Synced", "True", { since: undefined });
    assert.equal(
      detailsOf(view({ name: "w1", ready, conditions: [ready, synced] })),
      "<details><summary>2 conditions, 0 recent changes</summary>\n" +
        "<dl><dt>Ready</dt><dd>False · Bad · <small>2027-01-15 07:59:00 UTC</small><br>a &lt;b&gt; &amp; &#39;c&#39;</dd>" +
        "<dt>Synced</dt><dd>True</dd></dl></details>",
    );
  });

  test("recent changes are listed newest first, after the conditions, then the phase", () => {
    const older: TransitionRecord = { at: now - 120, what: "generation", from: "1", to: "2" };
    const newer: TransitionRecord = { at: now - 60, what: "phase", from: "Pending", to: "Running" };
    assert.equal(
      detailsOf(
        view({
          name: "w1",
          conditions: [],
          ready: undefined,
          phase: "Running",
          recentTransitions: [older, newer],
        }),
      ),
      "<details><summary>0 conditions, 2 recent changes</summary>\n<dl></dl>" +
        "<dl><dt><small>2027-01-15 07:59:00 UTC</small></dt><dd>phase Pending → Running</dd>" +
        "<dt><small>2027-01-15 07:58:00 UTC</small></dt><dd>generation 1 → 2</dd></dl>" +
        "<p>Phase: Running</p></details>",
    );
  });

  test("a change reads subject, from → to (∅ for none), (reason) and : message, escaped", () => {
    const said = (t: Omit<TransitionRecord, "at">) =>
      detailsOf(
        view({ name: "w1", conditions: [], ready: undefined, recentTransitions: [{ at: now, ...t }] }),
      ).match(/<dd>([\s\S]*?)<\/dd>/)?.[1];
    assert.equal(
      said({ what: "condition", type: "Ready", from: "True", to: "False", reason: "Boom", message: "x < y" }),
      "Ready True → False (Boom): x &lt; y",
    );
    assert.equal(said({ what: "condition", to: "True" }), "condition ∅ → True");
    assert.equal(said({ what: "phase", from: "Pending" }), "phase Pending → ∅");
    assert.equal(said({ what: "terminating" }), "terminating");
    assert.equal(
      said({ what: "observedGeneration", from: "1", to: "2", message: "m" }),
      "observedGeneration 1 → 2: m",
    );
    assert.equal(said({ what: "condition", type: "Synced", reason: "R" }), "Synced (R)");
  });
});
