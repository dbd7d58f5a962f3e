// The list/watch loop against a scripted fake API (fast and exact): paging,
// resuming, events, relisting on 410 and stopping. The delays between retries
// are in list-watch-retry.test.ts; the real apiserver cases (410 after
// compaction, restarts, 403) are in test/e2e. Every loop is stopped by
// startLoop's t.after, so a failing assertion never leaves one running.
import assert from "node:assert/strict";
import { type TestContext, test } from "node:test";
import { setImmediate as nextTurn } from "node:timers/promises";
import { KubeHttpError } from "../../src/kube/client.ts";
import { ListWatch } from "../../src/kube/list-watch.ts";
import {
  type ApiCall,
  fakeKubeApi,
  object,
  startLoop,
  waitFor,
  watchLine,
} from "../support/fake-kube-api.ts";

const watches = (calls: ApiCall[]) => calls.filter((c) => c.kind === "watch");

/** Waits for the loop's first watch (after its list). */
function watchOpened(run: { calls: ApiCall[]; log: string[] }): Promise<void> {
  return waitFor(
    () => watches(run.calls).length === 1,
    "the watch",
    () => run.log,
  );
}

const without = (log: string[], prefix: string) => log.filter((l) => !l.startsWith(prefix));

test("paginated list, then a watch from the list's resourceVersion; bookmarks move it; a throwing handler is contained", async (t) => {
  const run = startLoop(
    t,
    {
      lists: (q) =>
        q.continue === undefined
          ? {
              status: 200,
              body: { items: [object("a", "1")], metadata: { continue: "page2", resourceVersion: "10" } },
            }
          : { status: 200, body: { items: [object("b", "2")], metadata: { resourceVersion: "10" } } },
      watches: [
        (o) => {
          o.onOpen?.();
          o.onLine(watchLine("ADDED", object("c", "11")));
          o.onLine(watchLine("MODIFIED", object("boom", "12")));
          o.onLine("not json");
          o.onLine(watchLine("BOOKMARK", object("", "15")));
        },
      ],
    },
    { pageSize: 1, labelSelector: "tier=web" },
  );
  await waitFor(
    () => watches(run.calls).length === 2,
    "the second watch",
    () => run.log,
  );
  assert.deepEqual(without(run.log, "watchEvent:").slice(0, 10), [
    "synced:false",
    "relist:initial",
    "listStarted:initial",
    "listed:a",
    "listed:b",
    "listFinished",
    "synced:true",
    "ADDED:c",
    "handlerError",
    "handlerError", // the malformed line is counted too
  ]);
  const [first, second] = run.calls;
  assert.equal(first?.method, "GET");
  assert.equal(first?.path, "/apis/example.com/v1/widgets");
  assert.deepEqual(first?.query, { limit: 1, continue: undefined, labelSelector: "tier=web" });
  assert.equal(second?.query.continue, "page2");
  const [watch1, watch2] = watches(run.calls);
  assert.equal(watch1?.query.resourceVersion, "10");
  assert.equal(watch1?.query.allowWatchBookmarks, true);
  assert.equal(watch1?.query.watch, 1);
  assert.equal(watch1?.query.labelSelector, "tier=web");
  assert.equal(watch2?.query.resourceVersion, "15", "resumes from the bookmark");
  assert.deepEqual(run.durations.at(0)?.[1], 2, "objects over all pages");
});

test("every event type reaches the observer; ADDED, MODIFIED and DELETED reach the handler, others do not", async (t) => {
  const run = startLoop(t, {
    watches: [
      (o) => {
        o.onOpen?.();
        o.onLine(watchLine("ADDED", object("a", "2")));
        o.onLine(watchLine("MODIFIED", object("a", "3")));
        o.onLine(watchLine("DELETED", object("a", "4")));
        o.onLine(watchLine("BOOKMARK", object("", "5")));
        o.onLine(JSON.stringify({ object: object("odd", "6") }));
      },
    ],
  });
  await waitFor(
    () => watches(run.calls).length === 2,
    "the second watch",
    () => run.log,
  );
  assert.deepEqual(
    run.log.filter((l) => /^(watchEvent|ADDED|MODIFIED|DELETED|BOOKMARK)/.test(l)),
    [
      "watchEvent:ADDED",
      "ADDED:a",
      "watchEvent:MODIFIED",
      "MODIFIED:a",
      "watchEvent:DELETED",
      "DELETED:a",
      "watchEvent:BOOKMARK",
      "watchEvent:UNKNOWN",
    ],
  );
  assert.equal(
    watches(run.calls)[1]?.query.resourceVersion,
    "6",
    "any event with a resourceVersion moves it",
  );
});

test("a list answer with no body is an empty list, not an error; without a resourceVersion the watch starts from ''", async (t) => {
  const run = startLoop(t, { lists: [{ status: 200 }] });
  await watchOpened(run);
  assert.deepEqual(without(run.log, "synced"), ["relist:initial", "listStarted:initial", "listFinished"]);
  assert.equal(watches(run.calls)[0]?.query.resourceVersion, "");
  assert.equal(run.durations[0]?.[1], 0);
});

test("only a 2xx list answer is accepted: 199 and 300 are errors that name the path", async (t) => {
  const run = startLoop(t, {
    lists: [
      { status: 199, body: { items: [object("x", "1")] } },
      { status: 300, body: { message: "multiple choices", items: [object("y", "1")] } },
    ],
  });
  await watchOpened(run);
  assert.deepEqual(
    run.log.filter((l) => l.startsWith("error") || l.startsWith("listed")),
    ["error:list:199", "error:list:300"],
  );
  const error = run.errors[1];
  assert.ok(error instanceof KubeHttpError);
  assert.equal(error.message, "list /apis/example.com/v1/widgets: HTTP 300: multiple choices");
});

test("list duration is measured on the injected clock, in seconds", async (t) => {
  let nowMs = 5_000;
  const run = startLoop(
    t,
    {
      lists: (q) => {
        nowMs += 750;
        return q.continue === undefined
          ? {
              status: 200,
              body: { items: [object("a", "1"), object("b", "1")], metadata: { continue: "p2" } },
            }
          : { status: 200, body: { items: [object("c", "1")], metadata: { resourceVersion: "9" } } };
      },
    },
    { now: () => nowMs },
  );
  await watchOpened(run);
  assert.deepEqual(run.durations, [[1.5, 3]]);
});

test("the server-side watch timeout is drawn between min and max with the injected random", async (t) => {
  const run = startLoop(t, {}, { watchTimeoutSeconds: [100, 300], random: () => 0.25 });
  await watchOpened(run);
  assert.equal(watches(run.calls)[0]?.query.timeoutSeconds, 150);
});

test("an HTTP 410 on the watch relists (reported); an ERROR 410 event relists (not reported); neither waits", async (t) => {
  let lists = 0;
  const run = startLoop(t, {
    lists: () => {
      lists++;
      return { status: 200, body: { items: [], metadata: { resourceVersion: String(lists * 100) } } };
    },
    watches: [
      () => {
        throw new KubeHttpError(410, { message: "gone" }, "watch");
      },
      (o) => {
        o.onOpen?.();
        o.onLine(watchLine("ERROR", { kind: "Status", code: 410, message: "too old resource version" }));
      },
    ],
  });
  await waitFor(
    () => watches(run.calls).length === 3,
    "the third watch",
    () => run.log,
  );
  assert.deepEqual(
    run.log.filter((l) => /^(error|relist|listStarted)/.test(l)),
    [
      "relist:initial",
      "listStarted:initial",
      "error:watch:410",
      "relist:expired",
      "listStarted:expired",
      "relist:expired",
      "listStarted:expired",
    ],
  );
  assert.deepEqual(
    watches(run.calls).map((c) => c.query.resourceVersion),
    ["100", "200", "300"],
  );
  assert.deepEqual(run.delays, [], "a relist after 410 starts at once");
});

test("a continue token that expired mid-list relists from the start, without reporting an error", async (t) => {
  let calls = 0;
  const run = startLoop(t, {
    lists: (q) => {
      calls++;
      if (q.continue === undefined) {
        return { status: 200, body: { items: [object(`a${calls}`, "1")], metadata: { continue: "p2" } } };
      }
      return calls === 2
        ? { status: 410, body: { kind: "Status", code: 410 } }
        : { status: 200, body: { items: [], metadata: { resourceVersion: "20" } } };
    },
  });
  await watchOpened(run);
  assert.deepEqual(
    run.log.filter((l) => /^(error|listStarted|listed)/.test(l)),
    ["listStarted:initial", "listed:a1", "listStarted:expired", "listed:a3"],
  );
  assert.deepEqual(run.delays, []);
});

test("after a failed list the relist says 'error'; a failed watch resumes without relisting", async (t) => {
  const run = startLoop(t, {
    lists: [{ status: 403, body: { kind: "Status", code: 403, message: "forbidden" } }],
    watches: [
      () => {
        throw new KubeHttpError(500, {}, "watch");
      },
    ],
  });
  await waitFor(
    () => watches(run.calls).length === 2,
    "the second watch",
    () => run.log,
  );
  assert.deepEqual(
    run.log.filter((l) => /^(error|listStarted)/.test(l)),
    ["listStarted:initial", "error:list:403", "listStarted:error", "error:watch:500"],
  );
});

test("an HTTP 410 on a list without a continue token is reported and relists as expired", async (t) => {
  const run = startLoop(t, { lists: [{ status: 410, body: { message: "gone" } }] });
  await watchOpened(run);
  assert.deepEqual(
    run.log.filter((l) => /^(error|listStarted)/.test(l)),
    ["listStarted:initial", "error:list:410", "listStarted:expired"],
  );
});

test("an ERROR event other than 410 ends the watch at once (later lines ignored) and resumes without relisting", async (t) => {
  let abortedAfterError = false;
  const run = startLoop(t, {
    lists: [{ status: 200, body: { items: [], metadata: { resourceVersion: "7" } } }],
    watches: [
      (o) => {
        o.onOpen?.();
        o.onLine(watchLine("ERROR", { kind: "Status", code: 500, message: "internal" }));
        abortedAfterError = o.signal.aborted;
        if (!o.signal.aborted) o.onLine(watchLine("ADDED", object("late", "8")));
      },
    ],
  });
  await waitFor(
    () => watches(run.calls).length === 2,
    "the second watch",
    () => run.log,
  );
  assert.equal(abortedAfterError, true, "the stream is aborted as soon as the ERROR arrives");
  assert.ok(!run.log.includes("ADDED:late"));
  assert.ok(run.log.includes("error:watch:500"));
  assert.match(String(run.errors[0]), /watch \/apis\/example\.com\/v1\/widgets: HTTP 500: internal/);
  assert.deepEqual(
    watches(run.calls).map((c) => c.query.resourceVersion),
    ["7", "7"],
  );
  assert.equal(run.log.filter((l) => l.startsWith("listStarted")).length, 1);
});

test("an error marks the collection unsynced until the next watch opens", async (t) => {
  const run = startLoop(t, {
    watches: [
      (o) => {
        o.onOpen?.();
        throw new KubeHttpError(500, {}, "watch");
      },
      (o) => o.onOpen?.(),
    ],
  });
  await waitFor(
    () => watches(run.calls).length === 3,
    "the third watch",
    () => run.log,
  );
  assert.deepEqual(
    run.log.filter((l) => /^(synced|error)/.test(l)),
    ["synced:false", "synced:true", "synced:false", "error:watch:500", "synced:true"],
  );
});

test("the inactivity watchdog reconnects a silent watch from the same resourceVersion and says why", async (t) => {
  const run = startLoop(
    t,
    {
      lists: [{ status: 200, body: { items: [], metadata: { resourceVersion: "7" } } }],
      watches: [
        (o) =>
          new Promise<void>((_resolve, reject) =>
            o.signal.addEventListener("abort", () => reject(new Error("aborted"))),
          ),
      ],
    },
    { inactivityMs: 50 },
  );
  await waitFor(
    () => watches(run.calls).length >= 2,
    "the second watch",
    () => run.log,
  );
  assert.ok(run.log.includes("error:watch:0"));
  assert.match(String(run.errors[0]), /no data on the watch for 50 ms; reconnecting/);
  assert.deepEqual(
    watches(run.calls)
      .map((c) => c.query.resourceVersion)
      .slice(0, 2),
    ["7", "7"],
  );
});

test("activity re-arms the inactivity watchdog: a stream that keeps talking is never cut", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const run = startLoop(
    t,
    {
      watches: [
        (o) => {
          o.onOpen?.();
          // 10 × 60 ms of a 100 ms watchdog: it would fire at 100 ms if not re-armed.
          for (let i = 0; i < 10; i++) {
            o.onActivity?.();
            t.mock.timers.tick(60);
          }
          o.onLine(watchLine("ADDED", object("alive", "2")));
        },
      ],
    },
    { inactivityMs: 100 },
  );
  // setTimeout is mocked here, so wait by yielding to the event loop instead of sleeping.
  const deadline = performance.now() + 5_000;
  while (watches(run.calls).length < 2 && performance.now() < deadline) await nextTurn();
  assert.ok(run.log.includes("ADDED:alive"), JSON.stringify(run.log));
  assert.equal(watches(run.calls).length, 2, "the loop went on to the next watch");
  assert.deepEqual(
    run.log.filter((l) => l.startsWith("error")),
    [],
  );
});

test("stopping during a pending request ends the loop without reporting an error and leaves it unsynced", async (t) => {
  let pending = false;
  const run = startLoop(t, {
    lists: (_query, signal) => {
      pending = true;
      // As a real request does: it fails once its signal aborts.
      return new Promise((_resolve, reject) =>
        signal?.addEventListener("abort", () => reject(new Error("request aborted")), { once: true }),
      );
    },
  });
  await waitFor(
    () => pending,
    "the list request",
    () => run.log,
  );
  await run.loop.stop();
  assert.deepEqual(
    run.log.filter((l) => l.startsWith("error")),
    [],
  );
  assert.equal(run.log.at(-1), "synced:false");
});

test("a watch that ended lets go of the stop signal: stopping later does not reach it", async (t) => {
  const opened: AbortSignal[] = [];
  const quick = (o: { signal: AbortSignal; onOpen?: () => void }): void => {
    opened.push(o.signal);
    o.onOpen?.();
  };
  const run = startLoop(t, { watches: Array.from({ length: 20 }, () => quick) });
  await waitFor(
    () => watches(run.calls).length === 21,
    "21 watches",
    () => run.log,
  );
  await run.loop.stop();
  // Each watch links its own abort to the stop signal; a link left behind
  // would abort every finished watch at stop, and leak one per reconnect.
  assert.deepEqual(
    opened.filter((s) => s.aborted),
    [],
  );
});

test("a handler and an observer that throw everywhere, handlerError included, never stop the loop", async (t) => {
  const { client, calls } = fakeKubeApi({
    watches: [
      (o) => {
        o.onOpen?.();
        o.onLine(watchLine("ADDED", object("a", "2")));
      },
    ],
  });
  const broken = (): never => {
    throw new Error("broken");
  };
  const events: string[] = [];
  const loop = new ListWatch(
    client,
    {
      listStarted: broken,
      listed: broken,
      listFinished: broken,
      event: (type) => {
        events.push(type);
        broken();
      },
    },
    {
      synced: broken,
      relist: broken,
      listDuration: broken,
      watchEvent: broken,
      error: broken,
      handlerError: broken,
    },
    { path: "/x", sleep: async () => {} },
  );
  t.after(() => loop.stop());
  loop.start();
  await waitFor(
    () => watches(calls).length === 2,
    "the second watch",
    () => calls,
  );
  assert.deepEqual(events, ["ADDED"]);
});

/**
 * Lists a page of a, b and c and logs what the handler saw, with "turn" where
 * something waiting for the event loop since a got its turn. `msPerObject`:
 * each object moves an injected clock on by that much (else the real clock).
 */
async function handOver(
  t: TestContext,
  listSliceMs: number,
  { stopAt, msPerObject }: { stopAt?: string; msPerObject?: number } = {},
): Promise<string[]> {
  const page = { status: 200, body: { items: ["a", "b", "c"].map((n) => object(n, "1")), metadata: {} } };
  const { client } = fakeKubeApi({ lists: () => page });
  const log: string[] = [];
  // Far from 0, as a monotonic clock is.
  let nowMs = 1_000_000;
  const loop: ListWatch = new ListWatch(
    client,
    {
      listStarted: () => {},
      listed: (o) => {
        nowMs += msPerObject ?? 0;
        const name = (o as { metadata: { name: string } }).metadata.name;
        log.push(name);
        // Something else waiting for the event loop, e.g. a scrape's next chunk.
        if (name === "a") setImmediate(() => log.push("turn"));
        if (name === stopAt) void loop.stop();
      },
      listFinished: () => log.push("listFinished"),
      event: () => {},
    },
    {
      synced: () => {},
      relist: () => {},
      listDuration: () => {},
      watchEvent: () => {},
      error: () => {},
      handlerError: () => {},
    },
    {
      path: "/x",
      listSliceMs,
      sleep: async () => {},
      ...(msPerObject !== undefined && { now: () => nowMs }),
    },
  );
  t.after(() => loop.stop());
  loop.start();
  await waitFor(
    () => log.includes("listFinished") || (stopAt !== undefined && log.includes("turn")),
    "the list's end",
    () => log,
  );
  await loop.stop();
  return log;
}

test("a list page is handed over in slices with a turn of the event loop between them; stopped meanwhile, the list does not finish", async (t) => {
  assert.deepEqual(await handOver(t, 0), ["a", "turn", "b", "c", "listFinished"]);
  assert.deepEqual(await handOver(t, 60_000), ["a", "b", "c", "listFinished", "turn"]);
  assert.deepEqual(
    await handOver(t, 0, { stopAt: "a" }),
    ["a", "turn"],
    "no object after the stop, and no listFinished",
  );
});

test("a slice of the list lasts listSliceMs on the injected clock: the turn comes after the object that reaches it", async (t) => {
  assert.deepEqual(
    await handOver(t, 2, { msPerObject: 1 }),
    ["a", "b", "turn", "c", "listFinished"],
    "1 ms after a: on; 2 ms after b: a turn",
  );
});

test("without inactivityMs, a silent watch is cut 15 s after its server-side timeout", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const run = startLoop(
    t,
    {
      watches: [
        (o) =>
          new Promise<void>((_resolve, reject) =>
            o.signal.addEventListener("abort", () => reject(new Error("aborted"))),
          ),
      ],
    },
    { watchTimeoutSeconds: [1, 1] },
  );
  // setTimeout is mocked here, so wait by yielding to the event loop instead of sleeping.
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 20; i++) await nextTurn();
  };
  await settle();
  assert.equal(watches(run.calls).length, 1, "the first watch is open");
  t.mock.timers.tick(15_999);
  await settle();
  assert.deepEqual(run.errors, [], "1 s timeout + 15 s grace not reached yet");
  t.mock.timers.tick(1);
  await settle();
  assert.match(String(run.errors[0]), /no data on the watch for 16000 ms; reconnecting/);
});

test("over a transport that checks its connection, a watch silent past that check plus 5 s is cut, and the bound is told", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  let alive: (() => void) | undefined;
  const run = startLoop(
    t,
    {
      watches: [
        (o) => {
          o.onOpen?.({ protocol: "h2", livenessCheckMs: 25_000 });
          alive = o.onAlive;
          return new Promise<void>((_resolve, reject) =>
            o.signal.addEventListener("abort", () => reject(new Error("aborted"))),
          );
        },
      ],
    },
    { watchTimeoutSeconds: [50, 50] },
  );
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 20; i++) await nextTurn();
  };
  await settle();
  assert.deepEqual(run.transport.bounds, [30_000], "25 s liveness check + 5 s grace");
  // The connection is heard from at 20 s: the quiet watch is alive, its watchdog starts over.
  t.mock.timers.tick(20_000);
  alive?.();
  assert.equal(run.transport.alive, 1, "the observer hears it (the data is current)");
  t.mock.timers.tick(29_999);
  await settle();
  assert.deepEqual(run.errors, [], "30 s from the last word not reached yet");
  t.mock.timers.tick(1);
  await settle();
  assert.match(
    String(run.errors[0]),
    /no sign of life from the watch's connection for 30000 ms; reconnecting/,
  );
});

test("over HTTP/1.1 (no check of its own) the bound is the watch's timeout plus the grace, and word of the connection is not asked for", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const run = startLoop(
    t,
    {
      watches: [
        (o) => {
          o.onOpen?.({ protocol: "http/1.1" });
          return new Promise<void>((_resolve, reject) =>
            o.signal.addEventListener("abort", () => reject(new Error("aborted"))),
          );
        },
      ],
    },
    { watchTimeoutSeconds: [50, 50] },
  );
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 20; i++) await nextTurn();
  };
  await settle();
  assert.deepEqual(run.transport.bounds, [65_000]);
  t.mock.timers.tick(64_999);
  await settle();
  assert.deepEqual(run.errors, []);
  t.mock.timers.tick(1);
  await settle();
  assert.match(String(run.errors[0]), /no data on the watch for 65000 ms; reconnecting/);
});

test("a quiet stream on a live connection is still cut at its own timeout plus the grace (the server forgot it)", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  let alive: (() => void) | undefined;
  const run = startLoop(
    t,
    {
      watches: [
        (o) => {
          o.onOpen?.({ protocol: "h2", livenessCheckMs: 25_000 });
          alive = o.onAlive;
          return new Promise<void>((_resolve, reject) =>
            o.signal.addEventListener("abort", () => reject(new Error("aborted"))),
          );
        },
      ],
    },
    { watchTimeoutSeconds: [50, 50] },
  );
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 20; i++) await nextTurn();
  };
  await settle();
  for (let s = 0; s < 64; s++) {
    t.mock.timers.tick(1_000);
    alive?.();
  }
  await settle();
  assert.deepEqual(run.errors, [], "64 s, the connection heard every second");
  t.mock.timers.tick(1_000);
  await settle();
  assert.match(String(run.errors[0]), /no data on the watch for 65000 ms; reconnecting/);
});

const shardSelector = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')";

test("a shard selector goes on every list page and watch; the list tells whether the apiserver applied it", async (t) => {
  // The apiserver says so (shardInfo), or it is seen: no object of another shard came (a custom
  // resource list echoes no shardInfo); an object of another shard shows it was ignored.
  const cases = [
    { echo: true, owned: ["a"], outcome: "applied" },
    { echo: false, owned: ["a", "b"], outcome: "applied" },
    { echo: false, owned: ["a"], outcome: "ignored" },
  ];
  for (const { echo, owned: ownedNames, outcome } of cases) {
    const run = startLoop(
      t,
      {
        lists: (q) => ({
          status: 200,
          body: {
            items: [owned(q.continue === undefined ? "a" : "b", "1", q.continue === undefined ? "a" : "b")],
            metadata: {
              continue: q.continue === undefined ? "page2" : undefined,
              resourceVersion: "10",
              ...(echo && { shardInfo: { selector: q.shardSelector } }),
            },
          },
        }),
      },
      {
        pageSize: 1,
        shardSelector,
        ownsUid: (uid) => ownedNames.includes(uid),
      },
    );
    await waitFor(
      () => watches(run.calls).length === 1,
      "the watch",
      () => run.log,
    );
    const lists = run.calls.filter((c) => c.kind === "list");
    assert.deepEqual(
      [...lists, ...watches(run.calls)].map((c) => c.query.shardSelector),
      [shardSelector, shardSelector, shardSelector],
    );
    assert.deepEqual(
      run.log.filter((l) => l.startsWith("shardSelector:") || l === "listFinished"),
      ["listFinished", `shardSelector:${outcome}`],
      `echo ${echo}, owned ${ownedNames}: said once, after the list`,
    );
  }
});

test("an empty list without shardInfo says nothing about the shard selector", async (t) => {
  const run = startLoop(t, {}, { shardSelector, ownsUid: () => true });
  await watchOpened(run);
  assert.deepEqual(
    run.log.filter((l) => l.startsWith("shardSelector:")),
    [],
  );
});

test("a shard selector the apiserver refuses (400 naming it) is dropped: listed again at once without it", async (t) => {
  const run = startLoop(
    t,
    {
      lists: (q) =>
        q.shardSelector !== undefined
          ? {
              status: 400,
              body: { kind: "Status", code: 400, message: "invalid shardSelector: not enabled" },
            }
          : { status: 200, body: { items: [object("a", "1")], metadata: { resourceVersion: "10" } } },
    },
    { shardSelector },
  );
  await watchOpened(run);
  assert.deepEqual(
    run.calls.map((c) => [c.kind, c.query.shardSelector]),
    [
      ["list", shardSelector],
      ["list", undefined],
      ["watch", undefined],
    ],
  );
  assert.ok(run.log.includes("shardSelector:refused"));
  assert.ok(run.log.includes("listed:a"));
  assert.ok(
    !run.log.some((l) => l.startsWith("error:")),
    "not an error: nothing is wrong with the apiserver",
  );
});

test("any other 400 stays an error, and the selector is kept", async (t) => {
  let first = true;
  const run = startLoop(
    t,
    {
      lists: () => {
        if (!first) return { status: 200, body: { items: [], metadata: { resourceVersion: "1" } } };
        first = false;
        return { status: 400, body: { kind: "Status", code: 400, message: "bad labelSelector" } };
      },
    },
    { shardSelector, backoff: { initialMs: 1, maxMs: 1 } },
  );
  await watchOpened(run);
  assert.ok(run.log.includes("error:list:400"));
  assert.deepEqual(
    run.calls.map((c) => c.query.shardSelector),
    [shardSelector, shardSelector, shardSelector],
  );
});

const owned = (name: string, rv: string, uid: string) => ({ metadata: { name, resourceVersion: rv, uid } });

/** A list page with this shard's object and another shard's. */
const pageWithOthers = {
  status: 200,
  body: {
    items: [owned("mine", "1", "u-mine"), owned("theirs", "1", "u-theirs")],
    metadata: { resourceVersion: "1" },
  },
};

/** Counts JSON.parse calls from here on (`n`, which a test may reset). */
function countParses(t: TestContext): { n: number } {
  const count = { n: 0 };
  const parse = JSON.parse;
  t.mock.method(JSON, "parse", (...args: Parameters<typeof JSON.parse>) => {
    count.n++;
    return parse(...args);
  });
  return count;
}

test("a shard's loop passes over other shards' watch events unparsed, counting them and resuming past them", async (t) => {
  const parses = countParses(t);
  const run = startLoop(
    t,
    {
      lists: [
        // Another shard's object in the list: the apiserver did not apply the selector.
        pageWithOthers,
      ],
      watches: [
        (o) => {
          o.onOpen?.();
          parses.n = 0;
          o.onLine(watchLine("ADDED", owned("theirs", "2", "u-theirs")));
          o.onLine(watchLine("MODIFIED", owned("mine", "3", "u-mine")));
          o.onLine(watchLine("DELETED", owned("theirs", "4", "u-theirs")));
        },
      ],
    },
    {
      shardSelector,
      ownsUid: (uid) => uid === "u-mine",
    },
  );
  await waitFor(
    () => watches(run.calls).length === 2,
    "the second watch",
    () => run.log,
  );
  assert.deepEqual(
    run.log.filter((l) => /^(ADDED|MODIFIED|DELETED):/.test(l)),
    ["MODIFIED:mine"],
    "only this shard's event reaches the handler",
  );
  assert.equal(run.log.filter((l) => l.startsWith("watchEvent:")).length, 3, "all three are counted");
  assert.equal(
    watches(run.calls)[1]?.query.resourceVersion,
    "4",
    "resumes after the last event, skipped or not",
  );
  assert.equal(parses.n, 1, "only this shard's event was parsed");
});

test("once a list shows the apiserver applies the selector, no event is peeked at: each is parsed and handled", async (t) => {
  const asked: string[] = [];
  const run = startLoop(
    t,
    {
      lists: [
        {
          status: 200,
          body: {
            items: [owned("mine", "1", "u-mine")],
            metadata: { resourceVersion: "1", shardInfo: { selector: shardSelector } },
          },
        },
      ],
      watches: [
        (o) => {
          o.onOpen?.();
          // The list page itself was read before it told: its items were asked about.
          asked.length = 0;
          o.onLine(watchLine("ADDED", owned("other", "2", "u-other")));
        },
      ],
    },
    {
      shardSelector,
      ownsUid: (uid) => {
        asked.push(uid);
        return uid === "u-mine";
      },
    },
  );
  await waitFor(
    () => watches(run.calls).length === 2,
    "the second watch",
    () => run.log,
  );
  assert.ok(run.log.includes("ADDED:other"), "handed over: the collector's own check decides");
  assert.deepEqual(asked, [], "ownsUid not asked while the apiserver filters");
});

test("without a shard selector (sharded by the exporter alone), other shards' objects are passed over unparsed from the start", async (t) => {
  const parses = countParses(t);
  let listParsed = -1;
  const run = startLoop(
    t,
    {
      lists: [pageWithOthers],
      watches: [
        (o) => {
          o.onOpen?.();
          listParsed = parses.n;
          parses.n = 0;
          for (const type of ["ADDED", "MODIFIED", "DELETED"])
            o.onLine(watchLine(type, owned("theirs", "2", "u-theirs")));
          o.onLine(watchLine("MODIFIED", owned("mine", "3", "u-mine")));
        },
      ],
    },
    { ownsUid: (uid) => uid === "u-mine" },
  );
  await waitFor(
    () => watches(run.calls).length === 2,
    "the second watch",
    () => run.log,
  );
  assert.deepEqual(
    run.log.filter((l) => /^(listed|ADDED|MODIFIED|DELETED):/.test(l)),
    ["listed:mine", "MODIFIED:mine"],
  );
  assert.equal(listParsed, 2, "the page's metadata and the one kept item: the other item was not parsed");
  assert.equal(
    parses.n,
    1,
    "of the four events only this shard's was parsed (ADDED, MODIFIED and DELETED passed over)",
  );
  // No selector asked: said after the list, so the shard_filter gauge reads "exporter".
  assert.deepEqual(
    run.log.filter((l) => l.startsWith("shardSelector:")),
    ["shardSelector:unasked"],
  );
});

test("a list page the peek cannot read (an item without a uid) is parsed whole: nothing in it is lost", async (t) => {
  const run = startLoop(
    t,
    {
      lists: [
        {
          status: 200,
          body: {
            items: [object("no-uid", "1"), owned("mine", "1", "u-mine")],
            metadata: { resourceVersion: "1" },
          },
        },
      ],
    },
    { shardSelector, ownsUid: (uid) => uid === "u-mine" },
  );
  await watchOpened(run);
  assert.deepEqual(
    run.log.filter((l) => l.startsWith("listed:")),
    ["listed:no-uid", "listed:mine"],
  );
});

test("a list that echoes the selector says applied even when it holds no object", async (t) => {
  const run = startLoop(
    t,
    {
      lists: [
        {
          status: 200,
          body: { items: [], metadata: { resourceVersion: "1", shardInfo: { selector: shardSelector } } },
        },
      ],
    },
    { shardSelector, ownsUid: () => true },
  );
  await watchOpened(run);
  assert.deepEqual(
    run.log.filter((l) => l.startsWith("shardSelector:")),
    ["shardSelector:applied"],
  );
});

test("under a shard selector a list answer with no body is still an empty list, not an error", async (t) => {
  const run = startLoop(t, { lists: [{ status: 200 }] }, { shardSelector, ownsUid: () => true });
  await watchOpened(run);
  assert.ok(!run.log.some((l) => l.startsWith("error:")), run.log.join(" "));
  assert.ok(run.log.includes("listFinished"));
});

test("only a 400 drops the selector: a 500 naming the shard selector is an error, and without a selector a 400 naming it is too", async (t) => {
  const shardMessage = { kind: "Status", message: "shardSelector: internal error" };
  const withSelector = startLoop(
    t,
    {
      lists: [
        { status: 500, body: { ...shardMessage, code: 500 } },
        { status: 200, body: { items: [], metadata: { resourceVersion: "1" } } },
      ],
    },
    { shardSelector, backoff: { initialMs: 1, maxMs: 1 } },
  );
  const withoutSelector = startLoop(
    t,
    {
      lists: [
        { status: 400, body: { ...shardMessage, code: 400 } },
        { status: 200, body: { items: [], metadata: { resourceVersion: "1" } } },
      ],
    },
    { backoff: { initialMs: 1, maxMs: 1 } },
  );
  for (const [run, code] of [
    [withSelector, 500],
    [withoutSelector, 400],
  ] as const) {
    await waitFor(
      () => watches(run.calls).length === 1,
      "the watch",
      () => run.log,
    );
    assert.ok(run.log.includes(`error:list:${code}`), run.log.join(" "));
    assert.ok(!run.log.includes("shardSelector:refused"));
    assert.equal(run.delays.length, 1, "retried after a backoff, not at once");
  }
  assert.deepEqual(
    withSelector.calls.map((c) => c.query.shardSelector),
    [shardSelector, shardSelector, shardSelector],
    "the selector is kept",
  );
});
