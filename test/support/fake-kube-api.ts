// A scripted Kubernetes API for fast unit tests of the list/watch loop (the
// real apiserver cases are in test/e2e), and a loop harness that records what
// the loop told its handler and observer, and the delays it waited.
import assert from "node:assert/strict";
import type { TestContext } from "node:test";
import { setImmediate as nextTurn, setTimeout as sleep } from "node:timers/promises";
import type { KubeClient, StreamOptions } from "../../src/kube/client.ts";
import { ListWatch, type ListWatchOptions } from "../../src/kube/list-watch.ts";

export interface ApiCall {
  kind: "list" | "watch";
  method: string;
  path: string;
  query: Record<string, unknown>;
}

/** An HTTP answer to a list request, or an Error: the request fails without one (refused, reset). */
export type ListAnswer = { status: number; body?: unknown } | Error;
/** Plays one watch (of `path`): calls onOpen/onLine/onActivity as a server would; throwing fails the stream. */
export type WatchScript = (options: StreamOptions, path: string) => Promise<void> | void;

export interface FakeApiScript {
  /** Answers in order, or a function of the query; once the queue is empty: an empty list at rv "1". */
  lists?:
    | ListAnswer[]
    | ((
        query: Record<string, unknown>,
        signal: AbortSignal | undefined,
        path: string,
      ) => ListAnswer | Promise<ListAnswer>);
  /** Played in order; once empty, a watch opens nothing and waits until it is aborted. */
  watches?: WatchScript[];
}

export const emptyList: ListAnswer = { status: 200, body: { items: [], metadata: { resourceVersion: "1" } } };

export function fakeKubeApi(script: FakeApiScript): { client: KubeClient; calls: ApiCall[] } {
  const calls: ApiCall[] = [];
  const watches = [...(script.watches ?? [])];
  const lists = script.lists;
  const client: KubeClient = {
    server: "https://fake.invalid",
    async request(method, path, options = {}) {
      const query = { ...options.query };
      calls.push({ kind: "list", method, path, query });
      const answer =
        typeof lists === "function"
          ? await lists(query, options.signal, path)
          : (lists?.shift() ?? emptyList);
      if (answer instanceof Error) throw answer;
      // As the real client: a 2xx answer's text goes through the caller's reader.
      const ok = answer.status >= 200 && answer.status < 300;
      if (!ok || options.parse === undefined || answer.body === undefined) {
        return answer as { status: number; body: never };
      }
      return { status: answer.status, body: options.parse(JSON.stringify(answer.body)) as never };
    },
    async stream(path, options) {
      calls.push({ kind: "watch", method: "GET", path, query: { ...options.query } });
      const next = watches.shift();
      if (next) return next(options, path);
      await untilAborted(options.signal);
    },
  };
  return { client, calls };
}

/** A watch that stays open, sending nothing, until the loop aborts it. */
export function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

export const object = (name: string, resourceVersion: string) => ({ metadata: { name, resourceVersion } });
export const watchLine = (type: string, value: unknown): string => JSON.stringify({ type, object: value });

export interface LoopRun {
  loop: ListWatch;
  /** Handler and observer calls in order, e.g. "listStarted:initial", "error:watch:500". */
  log: string[];
  /** Errors the observer was given, in order. */
  errors: unknown[];
  /** Every delay the loop waited, in ms. */
  delays: number[];
  /** listDuration(seconds, objects) calls. */
  durations: [number, number][];
  /** The silence bound told at each watch's opening (ms), and how often the connection was said alive. */
  transport: { bounds: number[]; alive: number };
  calls: ApiCall[];
}

/**
 * Starts a ListWatch on a fake API with recording handler and observer, and
 * stops it when the test ends, pass or fail (a loop left running would keep
 * the test process alive). Delays are recorded, not waited, unless `sleep` is given.
 */
export function startLoop(
  t: TestContext,
  script: FakeApiScript,
  options: Partial<ListWatchOptions> = {},
): LoopRun {
  const { client, calls } = fakeKubeApi(script);
  const log: string[] = [];
  const errors: unknown[] = [];
  const delays: number[] = [];
  const durations: [number, number][] = [];
  const transport = { bounds: [] as number[], alive: 0 };
  const name = (o: unknown): string => String((o as { metadata?: { name?: string } }).metadata?.name);
  const loop = new ListWatch(
    client,
    {
      listStarted: (reason) => log.push(`listStarted:${reason}`),
      listed: (o) => log.push(`listed:${name(o)}`),
      listFinished: () => log.push("listFinished"),
      event: (type, o) => {
        if (name(o) === "boom") throw new Error("handler failed");
        log.push(`${type}:${name(o)}`);
      },
    },
    {
      synced: (synced) => log.push(`synced:${synced}`),
      relist: (reason) => log.push(`relist:${reason}`),
      listDuration: (seconds, objects) => durations.push([seconds, objects]),
      shardSelector: (outcome) => log.push(`shardSelector:${outcome}`),
      watchEvent: (type) => log.push(`watchEvent:${type}`),
      silenceBound: (ms) => transport.bounds.push(ms),
      alive: () => transport.alive++,
      error: (operation, code, error) => {
        log.push(`error:${operation}:${code}`);
        errors.push(error);
      },
      handlerError: () => log.push("handlerError"),
    },
    {
      path: "/apis/example.com/v1/widgets",
      backoff: { initialMs: 100, maxMs: 1_000 },
      // A macrotask per delay: a loop that never really waits still lets timers run.
      sleep: async (ms) => {
        delays.push(ms);
        await nextTurn();
      },
      ...options,
    },
  );
  t.after(() => loop.stop());
  loop.start();
  return { loop, log, errors, delays, durations, transport, calls };
}

/** Polls until `condition` holds; fails with what was seen after a generous deadline. */
export async function waitFor(condition: () => boolean, what: string, seen: () => unknown): Promise<void> {
  // The fake answers in-process within milliseconds; 5 s is generous even on a loaded machine.
  const deadline = performance.now() + 5_000;
  while (!condition()) {
    if (performance.now() > deadline) {
      assert.fail(`timed out waiting for ${what}; seen: ${JSON.stringify(seen())}`);
    }
    await sleep(5);
  }
}
