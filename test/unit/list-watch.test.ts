// The list/watch loop against a scripted fake API (fast and exact); the real
// apiserver cases (410 after compaction, restarts, 403) are in test/e2e.
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { type KubeClient, KubeHttpError, type StreamOptions } from "../../src/kube/client.ts";
import { ListWatch, type ListWatchHandler, type ListWatchObserver } from "../../src/kube/list-watch.ts";

type Call =
  | { kind: "list"; query: Record<string, unknown> }
  | { kind: "watch"; query: Record<string, unknown> };

/** A fake API: lists and watches answer from queues the test fills. */
function fakeApi(script: {
  lists: (query: Record<string, unknown>) => { status: number; body: unknown };
  watches: ((options: StreamOptions) => Promise<void>)[];
}): { client: KubeClient; calls: Call[] } {
  const calls: Call[] = [];
  const client: KubeClient = {
    server: "https://fake.invalid",
    async request(_method, _path, options = {}) {
      calls.push({ kind: "list", query: { ...options.query } });
      return script.lists(options.query ?? {}) as { status: number; body: never };
    },
    async stream(_path, options) {
      calls.push({ kind: "watch", query: { ...options.query } });
      const next = script.watches.shift();
      if (!next) {
        await new Promise<void>((resolve) =>
          options.signal.addEventListener("abort", () => resolve(), { once: true }),
        );
        return;
      }
      options.onOpen?.();
      await next(options);
    },
  };
  return { client, calls };
}

function recorder(): { handler: ListWatchHandler; observer: ListWatchObserver; log: string[] } {
  const log: string[] = [];
  return {
    log,
    handler: {
      listStarted: (reason) => log.push(`listStarted:${reason}`),
      listed: (o) => log.push(`listed:${(o as { metadata: { name: string } }).metadata.name}`),
      listFinished: () => log.push("listFinished"),
      event: (type, o) => {
        const name = (o as { metadata: { name: string } }).metadata.name;
        if (name === "boom") throw new Error("handler failed");
        log.push(`${type}:${name}`);
      },
    },
    observer: {
      synced: (s) => log.push(`synced:${s}`),
      relist: () => {},
      listDuration: () => {},
      watchEvent: () => {},
      error: (op, code) => log.push(`error:${op}:${code}`),
      handlerError: () => log.push("handlerError"),
    },
  };
}

const obj = (name: string, rv: string) => ({ metadata: { name, resourceVersion: rv } });
const line = (type: string, object: unknown) => JSON.stringify({ type, object });

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await sleep(10);
  assert.ok(condition(), "timed out");
}

test("paginated list, then a watch from the list's resourceVersion; bookmarks move it; a throwing handler is contained", async () => {
  const { client, calls } = fakeApi({
    lists: (q) =>
      q.continue === undefined
        ? {
            status: 200,
            body: { items: [obj("a", "1")], metadata: { continue: "page2", resourceVersion: "10" } },
          }
        : { status: 200, body: { items: [obj("b", "2")], metadata: { resourceVersion: "10" } } },
    watches: [
      async (o) => {
        o.onLine(line("ADDED", obj("c", "11")));
        o.onLine(line("MODIFIED", obj("boom", "12")));
        o.onLine("not json");
        o.onLine(line("BOOKMARK", obj("", "15")));
      },
    ],
  });
  const r = recorder();
  const loop = new ListWatch(client, r.handler, r.observer, {
    path: "/x",
    pageSize: 1,
    backoff: { initialMs: 5, maxMs: 10 },
  });
  loop.start();
  await until(() => calls.filter((c) => c.kind === "watch").length === 2);
  await loop.stop();
  assert.deepEqual(r.log.slice(0, 8), [
    "synced:false",
    "listStarted:initial",
    "listed:a",
    "listed:b",
    "listFinished",
    "synced:true",
    "ADDED:c",
    "handlerError",
  ]);
  assert.equal(r.log[8], "handlerError", "the malformed line is counted too");
  const watches = calls.filter((c) => c.kind === "watch");
  assert.equal(watches[0]?.query.resourceVersion, "10");
  assert.equal(watches[0]?.query.allowWatchBookmarks, true);
  assert.equal(watches[1]?.query.resourceVersion, "15", "resumes from the bookmark");
  assert.equal(calls[1]?.query.continue, "page2");
});

test("an ERROR 410 in the stream relists; other errors back off and resume without relisting", async () => {
  let lists = 0;
  const { client, calls } = fakeApi({
    lists: () => {
      lists++;
      return { status: 200, body: { items: [], metadata: { resourceVersion: String(lists * 100) } } };
    },
    watches: [
      async () => {
        throw new KubeHttpError(500, { message: "boom" }, "watch");
      },
      async (o) =>
        o.onLine(line("ERROR", { kind: "Status", code: 410, message: "too old resource version" })),
    ],
  });
  const r = recorder();
  const loop = new ListWatch(client, r.handler, r.observer, {
    path: "/x",
    backoff: { initialMs: 5, maxMs: 10 },
  });
  loop.start();
  await until(() => lists === 2 && calls.filter((c) => c.kind === "watch").length === 3);
  await loop.stop();
  assert.ok(r.log.includes("error:watch:500"));
  assert.ok(r.log.includes("listStarted:expired"));
  const watches = calls.filter((c) => c.kind === "watch").map((c) => c.query.resourceVersion);
  assert.deepEqual(
    watches,
    ["100", "100", "200"],
    "after a 500 the same resourceVersion; after 410 the new list's",
  );
});

test("a failing list is retried with backoff and reported; it never throws out of the loop", async () => {
  let attempts = 0;
  const { client } = fakeApi({
    lists: () => {
      attempts++;
      return attempts < 3
        ? { status: 403, body: { kind: "Status", code: 403, message: "forbidden" } }
        : { status: 200, body: { items: [], metadata: { resourceVersion: "1" } } };
    },
    watches: [],
  });
  const r = recorder();
  const loop = new ListWatch(client, r.handler, r.observer, {
    path: "/x",
    backoff: { initialMs: 5, maxMs: 10 },
  });
  loop.start();
  await until(() => r.log.includes("listFinished"));
  await loop.stop();
  assert.equal(r.log.filter((l) => l === "error:list:403").length, 2);
  assert.ok(r.log.includes("listStarted:error"), "a relist after an error says so");
});

test("the inactivity watchdog reconnects a silent watch from the same resourceVersion", async () => {
  const { client, calls } = fakeApi({
    lists: () => ({ status: 200, body: { items: [], metadata: { resourceVersion: "7" } } }),
    watches: [
      (o) =>
        new Promise<void>((_resolve, reject) =>
          o.signal.addEventListener("abort", () => reject(new Error("aborted"))),
        ),
    ],
  });
  const r = recorder();
  const loop = new ListWatch(client, r.handler, r.observer, {
    path: "/x",
    inactivityMs: 50,
    backoff: { initialMs: 5, maxMs: 10 },
  });
  loop.start();
  await until(() => calls.filter((c) => c.kind === "watch").length >= 2);
  await loop.stop();
  assert.ok(r.log.includes("error:watch:0"));
  assert.deepEqual(
    calls
      .filter((c) => c.kind === "watch")
      .map((c) => c.query.resourceVersion)
      .slice(0, 2),
    ["7", "7"],
  );
});
