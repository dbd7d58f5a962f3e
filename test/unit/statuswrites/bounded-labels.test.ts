// Status-write labels are bounded: group/kind/namespace only from what the
// apiserver confirmed (a fake discovery and namespace list here; the real
// apiserver is in test/e2e/hostile-callers.test.ts), one series budget across
// the families, and a counter of every fold.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Registry } from "@prometheus-io/client";
import { confirmedLabels } from "../../../src/statuswrites/confirmed-labels.ts";
import {
  type ApiResourceList,
  createDiscoveryKindResolver,
  type KindResolver,
  maxTrackedGroupVersions,
  staticKindResolver,
} from "../../../src/statuswrites/kinds.ts";
import { createStatusWriteMetrics, type StatusWriteObservation } from "../../../src/statuswrites/metrics.ts";
import { KnownNamespaces } from "../../../src/statuswrites/namespaces.ts";

const widgets = { group: "example.com", resource: "widgets", kind: "Widget" };
const target = (namespace: string, group = "example.com", resource = "widgets") => ({
  group,
  version: "v1",
  resource,
  namespace,
});

test("confirmed labels: a served kind and a known namespace are kept", async () => {
  const resolver = staticKindResolver([widgets], ["shop"]);
  assert.deepEqual(await confirmedLabels(resolver, target("shop"), 403), {
    group: "example.com",
    kind: "Widget",
    namespace: "shop",
    folded: [],
  });
});

test("confirmed labels: a made-up group or resource folds group and kind; a made-up namespace folds namespace", async () => {
  const resolver = staticKindResolver([widgets], ["shop"]);
  assert.deepEqual(await confirmedLabels(resolver, target("shop", "evil.example", "gizmos"), 403), {
    group: "other",
    kind: "other",
    namespace: "shop",
    folded: ["group", "kind"],
  });
  assert.deepEqual(await confirmedLabels(resolver, target("made-up-1"), 403), {
    group: "example.com",
    kind: "Widget",
    namespace: "other",
    folded: ["namespace"],
  });
  assert.deepEqual(await confirmedLabels(resolver, target(""), 404), {
    group: "example.com",
    kind: "Widget",
    namespace: "",
    folded: [],
  });
});

test("confirmed labels: a successful write confirms its namespace, also for a failure queued before it resolves", async () => {
  const resolver = staticKindResolver([widgets]);
  // As the audit receiver does: every write of a batch is started before any is awaited.
  const [success, conflict] = await Promise.all([
    confirmedLabels(resolver, target("new-ns"), 200),
    confirmedLabels(resolver, target("new-ns"), 409),
  ]);
  assert.equal(success.namespace, "new-ns");
  assert.equal(conflict.namespace, "new-ns");
  const later = await confirmedLabels(resolver, target("new-ns"), 403);
  assert.equal(later.namespace, "new-ns");
});

test("confirmed labels: a resolver that fails confirms nothing, and never fails the count", async () => {
  const failing: KindResolver = {
    kindOf: () => Promise.reject(new Error("discovery down")),
    namespaceExists: () => Promise.reject(new Error("list down")),
    namespaceConfirmed: () => {},
  };
  assert.deepEqual(await confirmedLabels(failing, target("shop"), 403), {
    group: "other",
    kind: "other",
    namespace: "other",
    folded: ["group", "kind", "namespace"],
  });
});

test("confirmed labels: only a 2xx confirms its namespace, a cluster-scoped write confirms none", async () => {
  const confirmed: string[] = [];
  const recording: KindResolver = {
    kindOf: async () => "Widget",
    namespaceExists: async () => false,
    namespaceConfirmed: (namespace) => confirmed.push(namespace),
  };
  const namespaceOf = async (code: number) =>
    (await confirmedLabels(recording, target(`ns-${code}`), code)).namespace;
  assert.equal(await namespaceOf(200), "ns-200");
  assert.equal(await namespaceOf(299), "ns-299");
  assert.equal(await namespaceOf(199), "other");
  assert.equal(await namespaceOf(300), "other");
  assert.equal((await confirmedLabels(recording, target(""), 200)).namespace, "");
  assert.deepEqual(confirmed, ["ns-200", "ns-299"]);
});

function fakeApiserver(servedGroupVersions: string[], lists: Record<string, ApiResourceList>) {
  const calls: string[] = [];
  return {
    calls,
    fetchResourceList: async (group: string, version: string) => {
      calls.push(`${group}/${version}`);
      const list = lists[`${group}/${version}`];
      if (!list) throw new Error("404");
      return list;
    },
    fetchServedGroupVersions: async () => {
      calls.push("served");
      return servedGroupVersions;
    },
  };
}

test("discovery: 200 made-up groups cost one list of served group/versions, and no per-group request", async () => {
  let clock = 0;
  const api = fakeApiserver(["v1", "example.com/v1"], {
    "example.com/v1": { resources: [{ name: "widgets", kind: "Widget" }] },
  });
  const resolver = createDiscoveryKindResolver({ ...api, now: () => clock });
  for (let i = 0; i < 200; i++) {
    assert.equal(await resolver.kindOf(`evil-${i}.example`, "v1", "things"), undefined);
  }
  assert.equal(await resolver.kindOf("example.com", "v1", "widgets"), "Widget");
  assert.equal(await resolver.kindOf("example.com", "v9", "widgets"), "Widget", "cached by group and plural");
  assert.equal(await resolver.kindOf("example.com", "v1", "made-up"), undefined);
  assert.deepEqual(api.calls, ["served", "example.com/v1"]);
  clock = 31_000;
  assert.equal(await resolver.kindOf("evil-1.example", "v1", "things"), undefined);
  assert.deepEqual(api.calls, ["served", "example.com/v1", "served"], "one refresh per interval");
});

test(`discovery without the served list: at most ${maxTrackedGroupVersions} group/versions are ever asked about`, async () => {
  const api = fakeApiserver([], {});
  const resolver = createDiscoveryKindResolver({ fetchResourceList: api.fetchResourceList, now: () => 0 });
  for (let i = 0; i < 2 * maxTrackedGroupVersions; i++) await resolver.kindOf(`evil-${i}.example`, "v1", "x");
  assert.equal(api.calls.length, maxTrackedGroupVersions);
});

test("namespaces: many misses cost one list per interval; a forbidden list is not asked again", async () => {
  let clock = 0;
  let lists = 0;
  const known = new KnownNamespaces({
    now: () => clock,
    list: async () => {
      lists++;
      return ["shop", "search"];
    },
  });
  const misses = await Promise.all(Array.from({ length: 200 }, (_, i) => known.exists(`made-up-${i}`)));
  assert.ok(misses.every((exists) => !exists));
  assert.equal(await known.exists("shop"), true);
  assert.equal(lists, 1);
  clock = 30_000;
  await known.exists("made-up-x");
  assert.equal(lists, 2);

  let forbiddenCalls = 0;
  let told = 0;
  const forbidden = new KnownNamespaces({
    now: () => clock,
    list: async () => {
      forbiddenCalls++;
      return "forbidden";
    },
    onForbidden: () => told++,
  });
  forbidden.confirm("shop");
  assert.equal(await forbidden.exists("shop"), true, "a namespace a write succeeded in");
  assert.equal(await forbidden.exists("search"), false);
  clock = 100_000;
  assert.equal(await forbidden.exists("search"), false);
  assert.deepEqual([forbiddenCalls, told], [1, 1]);
});

test("namespaces: both sets are capped", async () => {
  const known = new KnownNamespaces({ maxNamespaces: 3, list: async () => ["a", "b", "c", "d", "e"] });
  for (const name of ["w1", "w2", "w3", "w4"]) known.confirm(name);
  assert.equal(await known.exists("w3"), true);
  assert.equal(await known.exists("w4"), false);
  assert.equal(await known.exists("c"), true);
  assert.equal(await known.exists("d"), false);
});

test("namespaces: lookups while a list is under way share it, and all see its names", async () => {
  let lists = 0;
  let answer: (names: string[]) => void = () => {};
  const known = new KnownNamespaces({
    list: () => {
      lists++;
      return new Promise((resolve) => {
        answer = resolve;
      });
    },
  });
  const lookups = Promise.all([known.exists("shop"), known.exists("shop"), known.exists("made-up")]);
  answer(["shop"]);
  assert.deepEqual(await lookups, [true, true, false]);
  assert.equal(lists, 1);
});

test("namespaces: a list that fails is reported, confirms nothing, and is tried again after the interval", async () => {
  let clock = 0;
  const errors: unknown[] = [];
  let fail = true;
  const known = new KnownNamespaces({
    now: () => clock,
    retryAfterMs: 1_000,
    list: async () => {
      if (fail) throw new Error("boom");
      return ["shop"];
    },
    onError: (error) => errors.push(String(error)),
  });
  assert.equal(await known.exists("shop"), false);
  assert.deepEqual(errors, ["Error: boom"]);
  fail = false;
  clock = 999;
  assert.equal(await known.exists("shop"), false, "not within the interval");
  clock = 1_000;
  assert.equal(await known.exists("shop"), true);
  // Without onError (or onForbidden), a failure or a refusal is still only a miss.
  const quiet = new KnownNamespaces({
    list: async () => {
      throw new Error("boom");
    },
  });
  assert.equal(await quiet.exists("shop"), false);
  const refusedErrors: unknown[] = [];
  const refused = new KnownNamespaces({
    list: async () => "forbidden",
    onError: (e) => refusedErrors.push(e),
  });
  assert.equal(await refused.exists("shop"), false);
  assert.deepEqual(refusedErrors, [], "a refusal is not an error, also without onForbidden");
});

test("namespaces: those known from the start exist without a list; the default interval is 30 s", async () => {
  let clock = 100_000;
  let lists = 0;
  const known = new KnownNamespaces({
    initial: ["shop"],
    now: () => clock,
    list: async () => {
      lists++;
      return [];
    },
  });
  assert.equal(await known.exists("shop"), true);
  assert.equal(lists, 0);
  await known.exists("x");
  clock = 129_999;
  await known.exists("x");
  assert.equal(lists, 1, "30 s since the last list (at 100 s) have not passed");
  clock = 130_000;
  await known.exists("x");
  assert.equal(lists, 2);
});

/** Lines of the status-write families (the fold counter apart) in the exposition. */
async function seriesLines(registry: Registry): Promise<string[]> {
  return (await registry.metrics())
    .split("\n")
    .filter(
      (l) => l.startsWith("cr_status_update_") && !l.startsWith("cr_status_update_labels_folded_total"),
    );
}

function observation(namespace: string, user: string, code = 403): StatusWriteObservation {
  return {
    source: "audit",
    group: "example.com",
    kind: "Widget",
    namespace,
    verb: "patch",
    code,
    failure: code >= 400 ? "Forbidden" : undefined,
    durationSeconds: 0.01,
    user,
  };
}

test("the series budget: new combinations past it are folded, known ones keep counting, folds are counted", async () => {
  const registry = new Registry();
  const metrics = createStatusWriteMetrics(registry, "cr_", { maxSeries: 60 });
  for (let i = 0; i < 500; i++) metrics.record(observation(`ns-${i}`, `user-${i % 7}`));
  const lines = await seriesLines(registry);
  // 60 in the budget, plus the fully folded combinations (one per family here).
  assert.ok(lines.length <= 60 + 15 + 3, `${lines.length} lines:\n${lines.join("\n")}`);
  const text = await registry.metrics();
  assert.match(
    text,
    /cr_status_update_requests_total\{group="other",kind="other",namespace="other",verb="patch",code="403",source="audit"\} \d+/,
  );
  const total = [...text.matchAll(/^cr_status_update_requests_total\{[^}]*\} (\d+)$/gm)].reduce(
    (sum, m) => sum + Number(m[1]),
    0,
  );
  assert.equal(total, 500, "every write is counted, folded or not");
  assert.match(
    text,
    /cr_status_update_labels_folded_total\{source="audit",label="namespace",cause="budget"\} \d+/,
  );
  // A combination admitted before the budget ran out keeps its labels.
  metrics.record(observation("ns-0", "user-0"));
  assert.match(
    await registry.metrics(),
    /cr_status_update_requests_total\{group="example.com",kind="Widget",namespace="ns-0",verb="patch",code="403",source="audit"\} 2/,
  );
});

test("folds the apiserver did not confirm are counted as unconfirmed, once per write and label", async () => {
  const registry = new Registry();
  const metrics = createStatusWriteMetrics(registry);
  metrics.record({
    ...observation("other", "u"),
    group: "other",
    kind: "other",
    folded: ["group", "kind", "namespace"],
  });
  const text = await registry.metrics();
  for (const label of ["group", "kind", "namespace"]) {
    assert.match(
      text,
      new RegExp(`labels_folded_total\\{source="audit",label="${label}",cause="unconfirmed"\\} 1`),
    );
  }
  assert.doesNotMatch(text, /cause="budget"/);
});

test("the user cap folds later users and counts them", async () => {
  const registry = new Registry();
  const metrics = createStatusWriteMetrics(registry, "cr_", { maxUsers: 2 });
  for (const user of ["a", "b", "c", "d"]) metrics.record(observation("ns", user, 200));
  const text = await registry.metrics();
  assert.match(text, /requests_by_user_total\{user="other",group="example.com",kind="Widget",code="200"\} 2/);
  assert.match(text, /labels_folded_total\{source="audit",label="user",cause="budget"\} 2/);
});

test("codes outside HTTP's range are not label values", async () => {
  const registry = new Registry();
  const metrics = createStatusWriteMetrics(registry);
  metrics.record(observation("ns", "u", 99_999));
  assert.match(await registry.metrics(), /code="other"/);
});

test("recordMany counts a group of writes as one record() per write would, pausing every 256 durations", async () => {
  const observation = {
    source: "audit" as const,
    group: "example.com",
    kind: "Widget",
    namespace: "shop",
    verb: "patch",
    code: 409,
    failure: "Conflict" as const,
    user: "system:serviceaccount:shop:controller",
    folded: ["namespace" as const],
  };
  // 1,000 writes: durations 0.001 … 1.0 s, every tenth unknown (NaN) and one negative (a clock step: not observed).
  const durations = Array.from({ length: 1000 }, (_, i) => (i % 10 === 9 ? Number.NaN : (i + 1) / 1000));
  durations[3] = -1;
  const one = new Registry();
  const many = new Registry();
  const byRecord = createStatusWriteMetrics(one, "cr_", { maxSeries: 40 });
  const byGroup = createStatusWriteMetrics(many, "cr_", { maxSeries: 40 });
  for (const seconds of durations) byRecord.record({ ...observation, durationSeconds: seconds });
  const pauses = [...byGroup.recordMany(observation, durations)].length;
  assert.equal(pauses, 3);
  const text = await many.metrics();
  assert.equal(text, await one.metrics());
  assert.match(text, /^cr_status_update_requests_total\{.*code="409".*\} 1000$/m);
  assert.match(text, /^cr_status_update_request_duration_seconds_count\{.*\} 899$/m);
  assert.match(text, /^cr_status_update_labels_folded_total\{.*cause="unconfirmed"\} 1000$/m);
});

test("codes 0 and 100–599 are label values; 99, 600 and fractions are not", async () => {
  const registry = new Registry();
  const metrics = createStatusWriteMetrics(registry);
  for (const code of [0, 100, 599, 99, 600, 200.5]) metrics.record(observation("ns", "u", code));
  const codes = [
    ...(await registry.metrics()).matchAll(
      /^cr_status_update_requests_total\{[^}]*code="([^"]*)"[^}]*\} (\d+)$/gm,
    ),
  ]
    .map((m) => `${m[1]}:${m[2]}`)
    .sort();
  assert.deepEqual(codes, ["0:1", "100:1", "599:1", "other:3"]);
});

test("a duration of 0 is observed; an unknown or negative one is not", async () => {
  const registry = new Registry();
  const metrics = createStatusWriteMetrics(registry);
  metrics.record({ ...observation("ns", "u", 200), durationSeconds: 0 });
  metrics.record({ ...observation("ns", "u", 200), durationSeconds: undefined });
  metrics.record({ ...observation("ns", "u", 200), durationSeconds: -0.5 });
  const text = await registry.metrics();
  assert.match(text, /^cr_status_update_request_duration_seconds_count\{[^}]*\} 1$/m);
  assert.match(text, /^cr_status_update_requests_total\{[^}]*\} 3$/m);
  const untimed = new Registry();
  createStatusWriteMetrics(untimed).record({ ...observation("ns", "u", 200), durationSeconds: undefined });
  assert.doesNotMatch(
    await untimed.metrics(),
    /duration_seconds_count\{/,
    "no histogram series without a duration",
  );
});

test("the series budget admits a label set that fills it exactly", async () => {
  const registry = new Registry();
  const metrics = createStatusWriteMetrics(registry, "cr_", { maxSeries: 1 });
  const write = (namespace: string): StatusWriteObservation => ({
    source: "proxy",
    group: "example.com",
    kind: "Widget",
    namespace,
    verb: "patch",
    code: 200,
    failure: undefined,
    durationSeconds: undefined,
  });
  metrics.record(write("shop"));
  metrics.record(write("search"));
  const text = await registry.metrics();
  assert.match(text, /requests_total\{group="example.com",kind="Widget",namespace="shop",[^}]*\} 1/);
  assert.match(text, /requests_total\{group="other",kind="other",namespace="other",[^}]*\} 1/);
});

test("recordMany of no writes counts nothing; of writes with no known duration, observes none and never pauses", async () => {
  const registry = new Registry();
  const metrics = createStatusWriteMetrics(registry);
  const o = { ...observation("ns", "u", 409) };
  assert.equal([...metrics.recordMany(o, [])].length, 0);
  assert.doesNotMatch(await registry.metrics(), /^cr_status_update_requests_total\{/m, "not even a zero");
  assert.equal(
    [
      ...metrics.recordMany(
        o,
        Array.from({ length: 300 }, () => Number.NaN),
      ),
    ].length,
    0,
  );
  const text = await registry.metrics();
  assert.match(text, /^cr_status_update_requests_total\{[^}]*\} 300$/m);
  assert.match(text, /^cr_status_update_failures_total\{[^}]*\} 300$/m);
  assert.match(text, /^cr_status_update_requests_by_user_total\{[^}]*\} 300$/m);
  assert.doesNotMatch(text, /duration_seconds_count\{/);
});
