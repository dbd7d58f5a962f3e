// Collectors of three shards fed the same events: what they keep, render,
// count and trace adds up to what one unsharded collector does, with no
// object twice; a new assignment drops objects without reporting them
// deleted.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { TraceRecord } from "../../src/core/entry.ts";
import { ownsUid, type ShardAssignment, shardSelectorOf } from "../../src/core/shard.ts";
import type { ObjectObservation, StateTracer, TraceStep } from "../../src/tracing/state-tracer.ts";
import { offlineCollector, perObjectText } from "../support/collector.ts";
import { fakeKubeApi, waitFor } from "../support/fake-kube-api.ts";
import { cond, spreadUid, widget } from "../support/objects.ts";

const uid = spreadUid;

/** 30 widgets in three namespaces, each one through a Ready transition (a histogram observation). */
function events(): ["ADDED" | "MODIFIED" | "DELETED", unknown][] {
  const out: ["ADDED" | "MODIFIED" | "DELETED", unknown][] = [];
  for (let i = 0; i < 30; i++) {
    const base = { name: `w${i}`, namespace: `ns${i % 3}`, uid: uid(i) };
    out.push([
      "ADDED",
      widget({
        ...base,
        resourceVersion: "1",
        status: { phase: "Provisioning", conditions: [cond("Ready", "False")] },
      }),
    ]);
    out.push([
      "MODIFIED",
      widget({
        ...base,
        resourceVersion: "2",
        status: { phase: "Running", conditions: [cond("Ready", "True", "2026-01-01T00:05:00Z")] },
      }),
    ]);
  }
  out.push(["DELETED", widget({ name: "w7", namespace: "ns1", uid: uid(7), resourceVersion: "3" })]);
  return out;
}

function lines(text: string): string[] {
  return text.split("\n").filter((l) => l !== "" && !l.startsWith("#"));
}

async function histogramCount(c: ReturnType<typeof offlineCollector>): Promise<number> {
  const text = await c.metrics.registry.metrics();
  const line = text
    .split("\n")
    .find((l) =>
      l.startsWith(
        'cr_condition_state_duration_seconds_count{group="example.com",kind="Widget",type="Ready"',
      ),
    );
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}

for (const mode of ["objects", "aggregate"] as const) {
  test(`three shards add up to one unsharded collector (${mode} mode)`, async () => {
    const whole = offlineCollector({ mode });
    const shards = [0, 1, 2].map((shard) =>
      offlineCollector({ mode, owns: (id) => ownsUid({ shard, total: 3 }, id) }),
    );
    for (const [type, object] of events()) {
      whole.collector.ingest(type, object);
      for (const s of shards) s.collector.ingest(type, object);
    }
    const sizes = shards.map((s) => s.collector.store.size);
    assert.equal(whole.collector.store.size, 29);
    assert.equal(
      sizes.reduce((a, b) => a + b),
      29,
      `objects per shard ${sizes.join(", ")}`,
    );
    assert.ok(
      sizes.every((n) => n > 0 && n < 29),
      `every shard holds some: ${sizes.join(", ")}`,
    );

    const shardLines = (await Promise.all(shards.map((s) => perObjectText(s)))).map(lines);
    if (mode === "objects") {
      const union = shardLines.flat().sort();
      assert.deepEqual(union, lines(await perObjectText(whole)).sort(), "the union is the unsharded output");
      assert.equal(new Set(union).size, union.length, "no line twice");
    } else {
      // Aggregates are per shard: the sums of each label set are the unsharded counts.
      const sums = new Map<string, number>();
      for (const line of shardLines.flat()) {
        const at = line.lastIndexOf(" ");
        sums.set(line.slice(0, at), (sums.get(line.slice(0, at)) ?? 0) + Number(line.slice(at + 1)));
      }
      const expected = new Map(
        lines(await perObjectText(whole)).map((l) => [
          l.slice(0, l.lastIndexOf(" ")),
          Number(l.slice(l.lastIndexOf(" ") + 1)),
        ]),
      );
      assert.deepEqual(sums, expected);
    }
    // Each transition is observed by the one shard that owns the object.
    const counts = await Promise.all(shards.map(histogramCount));
    assert.equal(await histogramCount(whole), 30);
    assert.equal(
      counts.reduce((a, b) => a + b),
      30,
      `observations per shard ${counts.join(", ")}`,
    );
  });
}

class RecordingTracer implements StateTracer {
  readonly observed: ObjectObservation[] = [];
  readonly endsOpenSpansOnShutdown = false;
  observe(o: ObjectObservation): TraceStep {
    this.observed.push(o);
    const uid = o.current?.uid;
    return { record: uid ? { open: uid, tracedGeneration: 1 } : undefined, traced: undefined };
  }
  traceIdFor(): string | undefined {
    return undefined;
  }
  tick(record: TraceRecord): TraceRecord {
    return record;
  }
  interrupt(): void {}
  async shutdown(): Promise<void> {}
}

test("a new assignment drops the objects now another shard's, without reporting them deleted", async () => {
  let assignment: ShardAssignment = { shard: 1, total: 2 };
  const tracer = new RecordingTracer();
  const c = offlineCollector({ mode: "aggregate", tracer, owns: (id) => ownsUid(assignment, id) });
  for (const [type, object] of events()) c.collector.ingest(type, object);
  const before = [...c.collector.store.entries()].map(([id]) => id);
  assert.ok(before.every((id) => ownsUid({ shard: 1, total: 2 }, id)));
  const deletedBefore = tracer.observed.filter((o) => o.current === undefined).length;

  assignment = { shard: 1, total: 3 };
  await c.collector.reshard(false);
  const kept = [...c.collector.store.entries()].map(([id]) => id);
  const moved = before.filter((id) => !ownsUid(assignment, id));
  assert.ok(moved.length > 0, "growing from 2 to 3 shards moves some objects away");
  assert.deepEqual(kept.sort(), before.filter((id) => ownsUid(assignment, id)).sort());
  assert.deepEqual(
    [...c.collector.traceRecords().values()].map((r) => r.open).sort(),
    kept.sort(),
    "the moved objects' trace records went with their entries",
  );
  assert.equal(
    tracer.observed.filter((o) => o.current === undefined).length,
    deletedBefore,
    "nothing reported deleted",
  );
  // The aggregate counts follow: they total the objects still held.
  const text = await perObjectText(c);
  const total = lines(text)
    .filter((l) => l.startsWith("cr_aggregate_objects{"))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
  assert.equal(total, kept.length);

  // Events of objects that are not this shard's are passed over.
  const foreign = Array.from({ length: 40 }, (_, i) => uid(100 + i)).find((id) => !ownsUid(assignment, id));
  assert.ok(foreign);
  c.collector.ingest("ADDED", widget({ name: "x", namespace: "ns0", uid: foreign }));
  assert.equal(c.collector.store.get(foreign), undefined);
});

test("lists and watches ask for the shard's range; a re-shard that relists asks for the new one", async (t) => {
  let assignment: ShardAssignment = { shard: 1, total: 2 };
  const { client, calls } = fakeKubeApi({});
  const c = offlineCollector({
    client,
    owns: (id) => ownsUid(assignment, id),
    shardSelector: () => shardSelectorOf(assignment),
  });
  t.after(() => c.collector.stop());
  c.collector.start();
  await waitFor(
    () => calls.some((call) => call.kind === "watch"),
    "the first watch",
    () => calls,
  );
  assignment = { shard: 1, total: 3 };
  await c.collector.reshard(true);
  await waitFor(
    () => calls.filter((call) => call.kind === "watch").length === 2,
    "the watch after the re-shard",
    () => calls,
  );
  const asked = calls.map((call) => [call.kind, call.query.shardSelector]);
  assert.deepEqual(asked, [
    ["list", "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')"],
    ["watch", "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')"],
    ["list", "shardRange(object.metadata.uid, '0x5555555555555556', '0xaaaaaaaaaaaaaaab')"],
    ["watch", "shardRange(object.metadata.uid, '0x5555555555555556', '0xaaaaaaaaaaaaaaab')"],
  ]);
});
