import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  appendTransitions,
  conditionChangesSince,
  recordOf,
  ringCaps,
} from "../../../src/core/change/transition-ring.ts";
import { diffStates } from "../../../src/core/change/transitions.ts";
import { defaultReadinessRules } from "../../../src/core/judge/readiness.ts";
import { defaultProjectionSettings, projectObject } from "../../../src/core/project/project.ts";
import type { Transition } from "../../../src/core/state.ts";
import { toObjectView } from "../../../src/status/from-state.ts";
import { isoTime, objectDetail, objectItem } from "../../../src/status/json.ts";
import { expandTemplate, objectLinks, templateProblem } from "../../../src/status/links.ts";
import { cond, t, widget } from "../../support/objects.ts";
import { condition, view, viewNow } from "../../support/views.ts";

const status = defaultReadinessRules;
const flip = (at: number, to: "True" | "False", message = "", reason?: string): Transition => ({
  kind: "condition",
  type: "Ready",
  from: to === "True" ? "False" : "True",
  to,
  at,
  since: at - 10,
  reason: reason ?? (to === "True" ? "Ok" : "Broken"),
  message,
});

describe("transition ring", () => {
  test("keeps the newest ringCapacity entries, oldest dropped", () => {
    let ring = appendTransitions([], [{ kind: "terminating", at: 0 }]);
    for (let i = 1; i <= 20; i++) ring = appendTransitions(ring, [flip(i, i % 2 ? "False" : "True")]);
    assert.equal(ring.length, ringCaps.capacity);
    assert.deepEqual(
      ring.map((r) => r.at),
      Array.from({ length: ringCaps.capacity }, (_, i) => 21 - ringCaps.capacity + i),
    );
  });

  test("status writes and first sight are not recorded, and an unchanged ring is the same array", () => {
    const ring = appendTransitions([], [{ kind: "phase", from: "A", to: "B", at: 1 }]);
    assert.equal(appendTransitions(ring, [{ kind: "statusWrite", noop: true, at: 2 }]), ring);
    assert.equal(appendTransitions(ring, [{ kind: "created", at: 2 }]), ring);
  });

  test("reasons and messages are capped", () => {
    const record = recordOf(flip(1, "False", "x".repeat(10_000), "R".repeat(500)));
    assert.equal(record?.message?.length, ringCaps.messageChars);
    assert.equal(record?.reason?.length, ringCaps.reasonChars);
    assert.ok(record?.message?.endsWith("..."));
  });

  test("flapping counts condition status changes inside the window only", () => {
    const ring = appendTransitions(
      [],
      [
        flip(100, "False"),
        flip(200, "True"),
        flip(300, "False"),
        {
          kind: "condition",
          type: "Synced",
          from: undefined,
          to: "True",
          at: 300,
          since: undefined,
          reason: "",
          message: "",
        },
        { kind: "phase", from: "A", to: "B", at: 300 },
      ],
    );
    assert.equal(conditionChangesSince(ring, 150), 2);
    assert.equal(conditionChangesSince(ring, 0), 3);
  });
});

describe("ObjectState → ObjectView", () => {
  test("the projection's result, Ready condition and generation facts carry over", () => {
    const raw = widget({
      generation: 3,
      managedFields: [
        { manager: "kubectl", operation: "Update", time: "2026-01-01T00:05:00Z", fieldsV1: { "f:spec": {} } },
      ],
      status: {
        observedGeneration: 2,
        conditions: [
          cond("Ready", "False", "2026-01-01T00:02:00Z", {
            reason: "ImagePullBackOff",
            message: "<b>no</b>",
          }),
        ],
      },
    });
    const state = projectObject(raw, defaultProjectionSettings);
    const now = t("2026-01-01T00:10:00Z");
    const ring = appendTransitions(
      [],
      [
        ...diffStates(undefined, state, now),
        { kind: "generation", from: 2, to: 3, at: t("2026-01-01T00:05:00Z"), specChanged: true },
      ],
    );
    const v = toObjectView({
      identity: { group: "example.com", version: "v1", kind: "Widget", resource: "widgets" },
      state,
      status,
      now,
      ring,
      flappingWindowSeconds: 900,
    });
    assert.equal(v.result, "InProgress");
    assert.equal(v.ready?.reason, "ImagePullBackOff");
    assert.equal(v.ready?.message, "<b>no</b>");
    assert.equal(v.generationRequestedAt, t("2026-01-01T00:05:00Z"));
    assert.deepEqual(
      v.recentTransitions.map((r) => [r.what, r.from, r.to]),
      [["generation", "2", "3"]],
    );

    const item = objectItem(v, now, {
      flappingMinTransitions: 3,
      flappingWindowSeconds: 900,
      links: { dashboardUrl: undefined, traceUrl: undefined },
    });
    assert.equal(item.lagging, true);
    assert.equal(item.lagSeconds, 300);
    assert.equal(item.generationLag, 1);
    assert.equal(item.since, "2026-01-01T00:02:00Z", "not Ready since Ready turned False");
    assert.equal(item.ready?.since, "2026-01-01T00:02:00Z");
  });

  test("the pipeline's own memory of when a generation was asked for wins", () => {
    const state = projectObject(
      widget({ generation: 4, status: { observedGeneration: 3 } }),
      defaultProjectionSettings,
    );
    const v = toObjectView({
      identity: { group: "g", version: "v1", kind: "K", resource: "ks" },
      state,
      status,
      now: 1000,
      generationRequestedAt: 900,
      flappingWindowSeconds: 900,
    });
    assert.equal(v.generationRequestedAt, 900);
  });
});

describe("links", () => {
  const templates = {
    dashboardUrl:
      "https://grafana.example.com/d/cr-status-object?var-namespace={namespace}&var-kind={kind}&var-name={name}",
    traceUrl: "https://jaeger.example.com/trace/{traceId}",
  };

  test("values are URL-encoded, so a name cannot change the URL's shape", () => {
    const links = objectLinks(view({ name: 'a&b="c"', traceId: "abc123" }), templates);
    assert.equal(
      links.dashboard,
      "https://grafana.example.com/d/cr-status-object?var-namespace=shop&var-kind=Widget&var-name=a%26b%3D%22c%22",
    );
    assert.equal(links.trace, "https://jaeger.example.com/trace/abc123");
  });

  test("no trace link without an open trace", () => {
    assert.equal(objectLinks(view({ name: "w" }), templates).trace, undefined);
    assert.equal(
      expandTemplate("https://x/{traceId}", { ...view({ name: "w" }), traceId: undefined }),
      undefined,
    );
  });

  const problems: [string, RegExp | undefined][] = [
    [templates.dashboardUrl, undefined],
    ["javascript:alert(1)", /http\(s\) URL/],
    ["https://x/{nmae}", /found \{nmae\}/],
    ["https://x/a b", /without spaces/],
  ];
  for (const [template, expected] of problems) {
    test(`template ${template}`, () => {
      const problem = templateProblem(template);
      if (expected) assert.match(problem ?? "", expected);
      else assert.equal(problem, undefined);
    });
  }
});

test("the detail carries conditions, the ring and the trace id; the item does not", () => {
  const v = view({
    name: "w",
    conditions: [condition("Ready", "False", { message: "m" }), condition("Synced", "True")],
    recentTransitions: [{ at: viewNow - 5, what: "terminating" }],
    traceId: "t1",
  });
  const options = {
    flappingMinTransitions: 3,
    flappingWindowSeconds: 900,
    links: { dashboardUrl: undefined, traceUrl: undefined },
  };
  const detail = objectDetail(v, viewNow, options);
  assert.deepEqual(
    detail.conditions.map((c) => c.type),
    ["Ready", "Synced"],
  );
  assert.deepEqual(detail.recentTransitions, [{ at: "2027-01-15T07:59:55Z", what: "terminating" }]);
  assert.equal(detail.traceId, "t1");
  assert.equal("conditions" in objectItem(v, viewNow, options), false);
});

test("times are whole seconds, also from a clock with fractions", () => {
  assert.equal(isoTime(1_800_000_000.876), "2027-01-15T08:00:00Z");
  assert.equal(isoTime(1_800_000_000), "2027-01-15T08:00:00Z");
  assert.equal(isoTime(undefined), null);
});
