// Kinds judged by state fields (Argo CD's Application: no conditions, no
// status subresource) through the tracer and the real SDK: a sync — OutOfSync,
// then Progressing, then Healthy and Synced — is one degraded episode, opened
// when the object leaves ready and closed when it is back, with the fields'
// values as its reasons.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { StateValue } from "../../../src/core/state.ts";
import * as attr from "../../../src/tracing/attributes.ts";
import { degradedTraceKey, traceIdOf } from "../../../src/tracing/ids.ts";
import { argoReadiness } from "../../support/state-fields.ts";
import { at, cluster, History, memoryTracing, object, sprockets, T } from "./support.ts";

const argo = argoReadiness;
/** A state value that entered `value` at T + `since` seconds, first seen by the exporter. */
const s = (name: string, value: string, since: number): StateValue => ({
  name,
  value,
  since: T + since,
  sinceSource: "first_seen",
});

test("a sync is one degraded episode from OutOfSync until Healthy and Synced", async () => {
  const tracing = memoryTracing();
  const history = new History(tracing.tracer, sprockets, false, argo);
  history.step({ now: 1, object: object({ states: [s("health", "Healthy", 0), s("sync", "Synced", 0)] }) });
  assert.deepEqual(await tracing.take(), []);
  assert.equal(tracing.tracer.openEpisodes, 0, "ready when first seen: nothing open");
  history.step({
    now: 2,
    object: object({ states: [s("health", "Healthy", 0), s("sync", "OutOfSync", 2)] }),
  });
  assert.equal(tracing.tracer.openEpisodes, 1, "OutOfSync opens an episode");
  history.step({
    now: 4,
    object: object({ states: [s("health", "Progressing", 4), s("sync", "Synced", 4)] }),
  });
  assert.equal(tracing.tracer.openEpisodes, 1, "Progressing after OutOfSync is the same episode");
  assert.deepEqual(await tracing.take(), []);
  history.step({ now: 7, object: object({ states: [s("health", "Healthy", 7), s("sync", "Synced", 4)] }) });
  assert.equal(tracing.tracer.openEpisodes, 0, "Healthy and Synced closes it");
  const spans = await tracing.take();
  // Keyed by when the object left ready (first seen, no API time): one trace id for the whole sync.
  const traceId = traceIdOf(degradedTraceKey(cluster, "uid-1", "Ready", `observed:${(T + 2) * 1000}|False`));
  const root = spans.find((span) => span.name === "Sprocket degraded");
  assert.ok(root, `spans: ${spans.map((span) => span.name).join(", ")}`);
  assert.equal(root.traceId, traceId);
  assert.equal(root.startMs, at(2));
  assert.equal(root.endMs, at(7));
  assert.equal(root.status, "ok");
  assert.equal(root.attributes[attr.CONDITION_TYPE], "Ready");
  assert.deepEqual(
    root.events.map((e) => e.attributes[attr.CONDITION_REASON] ?? e.attributes),
    ["Progressing"],
    "the reason change is an event of the one episode",
  );
});

test("a kind with a readiness condition is traced by it, not by its state fields", async () => {
  const tracing = memoryTracing();
  const history = new History(tracing.tracer, sprockets, false, { ...argo, readyCondition: "Ready" });
  history.step({
    now: 1,
    object: object({ states: [s("health", "Healthy", 0), s("sync", "OutOfSync", 0)] }),
  });
  assert.equal(tracing.tracer.openEpisodes, 0);
});
