// Objects leave the exporter two ways: a DELETED event, and a relist that no
// longer returns them (their DELETED events were missed while the watch was
// down). Either way every series of the object goes, and no other object's.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { StreamOptions } from "../../src/kube/client.ts";
import { type OfflineCollector, offlineCollector, perObjectText } from "../support/collector.ts";
import { fakeKubeApi, type ListAnswer, untilAborted, waitFor, watchLine } from "../support/fake-kube-api.ts";
import { cond, widget } from "../support/objects.ts";

/** The per-object lines of one object, by name. */
async function linesOf(c: OfflineCollector, name: string): Promise<string[]> {
  return (await perObjectText(c)).split("\n").filter((line) => line.includes(`,name="${name}"`));
}

const running = (name: string, namespace = "ns1", resourceVersion = "1") =>
  widget({
    name,
    namespace,
    resourceVersion,
    status: { phase: "Running", conditions: [cond("Ready", "True")] },
  });

const listOf = (resourceVersion: string, ...items: unknown[]): ListAnswer => ({
  status: 200,
  body: { items, metadata: { resourceVersion } },
});

/** A watch the API ends at once with 410 Gone: the loop relists. */
function gone(options: StreamOptions): void {
  options.onOpen?.();
  options.onLine(watchLine("ERROR", { kind: "Status", code: 410, message: "too old resource version" }));
}

test("a DELETED event removes every series of that object and leaves the others as they were", async () => {
  const c = offlineCollector();
  c.collector.ingest("ADDED", running("a"));
  c.collector.ingest("ADDED", running("b"));
  // A counter with a value, so the deleted object has more than its gauges to lose.
  c.collector.ingest(
    "MODIFIED",
    widget({ name: "a", resourceVersion: "2", status: { conditions: [cond("Ready", "False")] } }),
  );
  const bBefore = await linesOf(c, "b");
  assert.ok((await linesOf(c, "a")).length >= 5, "a has series before it is deleted");

  c.collector.ingest("DELETED", widget({ name: "a", resourceVersion: "3" }));
  assert.deepEqual(await linesOf(c, "a"), [], "no series of the deleted object");
  assert.deepEqual(await linesOf(c, "b"), bBefore, "the other object's series unchanged");
  assert.deepEqual(
    [...c.collector.store.values()].map((e) => e.state.name),
    ["b"],
  );
});

test("a relist sweeps out the objects the new list no longer returns, and only those", async (t) => {
  let lists = 0;
  const { client, calls } = fakeKubeApi({
    lists: () => {
      lists++;
      // b was deleted while the watch was down: the second list lacks it.
      return lists === 1
        ? listOf("10", running("a"), running("b"), running("c"))
        : listOf("20", running("a"), running("c", "ns1", "15"));
    },
    watches: [gone],
  });
  const c = offlineCollector({ client });
  t.after(() => c.collector.stop());
  c.collector.start();
  const watches = () => calls.filter((call) => call.kind === "watch").length;
  await waitFor(
    () => watches() === 2,
    "the watch after the relist",
    () => calls,
  );
  assert.equal(lists, 2, "410 Gone relisted once");
  assert.deepEqual(
    [...c.collector.store.values()].map((e) => e.state.name).sort(),
    ["a", "c"],
    "b, missing from the new list, is gone",
  );
  assert.deepEqual(await linesOf(c, "b"), [], "no series of the swept object");
  assert.ok((await linesOf(c, "a")).length > 0 && (await linesOf(c, "c")).length > 0);
});

test("a relist of one namespace sweeps only that namespace's objects", async (t) => {
  const listsByPath = new Map<string, number>();
  const { client, calls } = fakeKubeApi({
    lists: (_query, _signal, path) => {
      const n = (listsByPath.get(path) ?? 0) + 1;
      listsByPath.set(path, n);
      if (path.includes("/namespaces/n2/")) return listOf("10", running("b", "n2"));
      // n1's second list is empty: its object was deleted meanwhile.
      return n === 1 ? listOf("10", running("a", "n1")) : listOf("20");
    },
    // Only n1's first watch ends with 410; every other watch stays open.
    watches: [0, 1].map(() => (options: StreamOptions, path: string) => {
      if (path.includes("/namespaces/n1/") && (listsByPath.get(path) ?? 0) === 1) return gone(options);
      return untilAborted(options.signal);
    }),
  });
  const c = offlineCollector({ client, namespaces: ["n1", "n2"] });
  t.after(() => c.collector.stop());
  c.collector.start();
  await waitFor(
    () => calls.filter((call) => call.kind === "watch").length === 3,
    "n1's watch after its relist, and n2's watch",
    () => calls,
  );
  assert.deepEqual(
    [...c.collector.store.values()].map((e) => `${e.state.namespace}/${e.state.name}`),
    ["n2/b"],
    "n1's missing object is gone; n2's, not in n1's list, stays",
  );
});
