// A started collector on a scripted API: what it lists (path, label
// selector), what it reports once listed (readiness, gauges, the info
// series), what stop() takes away, how reshard(relist) lists again, and the
// series cap's exact edge.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { StreamOptions } from "../../src/kube/client.ts";
import { offlineCollector } from "../support/collector.ts";
import { fakeKubeApi, type ListAnswer, untilAborted, waitFor } from "../support/fake-kube-api.ts";
import { cond, widget } from "../support/objects.ts";

const R = { group: "example.com", version: "v1", kind: "Widget" };
const listOf = (...items: unknown[]): ListAnswer => ({
  status: 200,
  body: { items, metadata: { resourceVersion: "10" } },
});
/** A watch the server opens and keeps open: the loop is synced. */
const openWatch = (options: StreamOptions) => {
  options.onOpen?.();
  return untilAborted(options.signal);
};
const ready = (name: string) => widget({ name, status: { conditions: [cond("Ready", "True")] } });

async function gauge(metric: { get(): Promise<{ values: { labels: object; value: number }[] }> }) {
  return (await metric.get()).values.map((v) => v.value);
}

test("a started collector lists its path with the label and field selectors, then reports synced, gauges and info; stop takes them away", async (t) => {
  const { client, calls } = fakeKubeApi({ lists: [listOf(ready("a"), ready("b"))], watches: [openWatch] });
  const fieldSelector = "metadata.namespace!=kube-system";
  const c = offlineCollector({ client, labelSelector: "team=a", fieldSelector });
  t.after(() => c.collector.stop());
  const before = c.collector.status();
  assert.deepEqual([before.initialSyncDone, before.synced, before.lastError], [false, false, undefined]);
  c.collector.start();
  await waitFor(
    () => c.collector.status().synced,
    "the collector synced",
    () => calls,
  );
  const list = calls.find((call) => call.kind === "list");
  assert.equal(list?.path, "/apis/example.com/v1/widgets");
  assert.equal(list?.query.labelSelector, "team=a");
  assert.equal(calls.find((call) => call.kind === "watch")?.query.labelSelector, "team=a");
  assert.equal(list?.query.fieldSelector, fieldSelector);
  assert.equal(calls.find((call) => call.kind === "watch")?.query.fieldSelector, fieldSelector);
  assert.equal(c.collector.status().initialSyncDone, true);
  assert.deepEqual(await gauge(c.metrics.objects), [2]);
  assert.deepEqual(await gauge(c.metrics.series), [c.collector.store.series]);
  assert.ok(c.collector.store.series > 0);
  const info = (await c.metrics.resourceInfo.get()).values;
  assert.equal(info.length, 1);
  assert.deepEqual({ ...info[0]?.labels }, { ...R, ...c.collector.settings.info });

  await c.collector.stop();
  assert.equal(c.collector.store.size, 0);
  assert.deepEqual((await c.metrics.resourceInfo.get()).values, [], "the info series goes");
  assert.deepEqual(await gauge(c.metrics.objects), [], "the per-resource gauges go");
  assert.deepEqual(await gauge(c.metrics.synced), []);
});

test("reshard(true) lists every scope again; reshard(false) keeps the watch", async (t) => {
  let lists = 0;
  const { client, calls } = fakeKubeApi({
    lists: () => {
      lists++;
      return listOf(ready("a"));
    },
  });
  const c = offlineCollector({ client });
  t.after(() => c.collector.stop());
  c.collector.start();
  const watches = () => calls.filter((call) => call.kind === "watch").length;
  await waitFor(
    () => watches() === 1,
    "the first watch",
    () => calls,
  );
  await c.collector.reshard(false);
  assert.equal(lists, 1, "no relist when the new assignment cannot add objects");
  await c.collector.reshard(true);
  await waitFor(
    () => watches() === 2,
    "the watch after the second list",
    () => calls,
  );
  assert.equal(lists, 2);
});

test("a listed object without identity is skipped and counted, the others kept", async (t) => {
  const { client, calls } = fakeKubeApi({
    lists: [listOf(ready("a"), { metadata: { uid: "x" } })],
    watches: [openWatch],
  });
  const c = offlineCollector({ client });
  t.after(() => c.collector.stop());
  c.collector.start();
  await waitFor(
    () => c.collector.status().synced,
    "the collector synced",
    () => calls,
  );
  assert.equal(c.collector.store.size, 1);
  assert.equal((await c.metrics.handlerErrors.get()).values[0]?.value, 1);
});

test("series cap: objects fit exactly up to maxSeries; a replaced object counts its new series, not both", () => {
  const probe = offlineCollector();
  probe.collector.ingest("ADDED", ready("a"));
  const perObject = probe.collector.store.series;
  const c = offlineCollector({ maxSeries: 2 * perObject });
  c.collector.ingest("ADDED", ready("a"));
  c.collector.ingest("ADDED", ready("b"));
  assert.equal(c.collector.store.series, 2 * perObject, "two objects fill the cap exactly");
  c.collector.ingest(
    "MODIFIED",
    widget({ name: "b", resourceVersion: "2", status: { conditions: [cond("Ready", "False")] } }),
  );
  assert.equal(
    c.collector.store.get("uid-b")?.series !== undefined,
    true,
    "b's new version replaces its old series",
  );
  c.collector.ingest("ADDED", ready("c"));
  assert.equal(c.collector.store.get("uid-c")?.series, undefined, "c is over the cap");
});
