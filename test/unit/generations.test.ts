// Generation bookkeeping (core/judge/generations.ts): where the observed generation
// comes from per source, the lag floored at 0, and when the current
// generation was requested, across the histories requestTime distinguishes.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  type GenerationSettings,
  generationLag,
  type ObjectMemory,
  observedGenerationOf,
  requestTime,
} from "../../src/core/judge/generations.ts";
import { defaultProjectionSettings, projectObject } from "../../src/core/project/project.ts";
import type { ObjectState } from "../../src/core/state.ts";
import { cond, type WidgetInit, widget } from "../support/objects.ts";

const p = (init: WidgetInit): ObjectState => projectObject(widget(init), defaultProjectionSettings);
const source = (s: GenerationSettings["source"]): GenerationSettings => ({
  source: s,
  readyCondition: "Ready",
});
/** Both an object-level and a Ready-level observedGeneration, different from each other. */
const both = p({
  generation: 3,
  status: {
    observedGeneration: 1,
    conditions: [cond("Ready", "True", undefined, { observedGeneration: 2 })],
  },
});
const conditionOnly = p({
  generation: 3,
  status: { conditions: [cond("Ready", "True", undefined, { observedGeneration: 2 })] },
});

test("observed generation per source: status, the ready condition's, or status then condition", () => {
  assert.equal(observedGenerationOf(both, source("status")), 1);
  assert.equal(
    observedGenerationOf(both, source("condition")),
    2,
    "condition: the object-level field is not read",
  );
  assert.equal(observedGenerationOf(both, source("status_or_condition")), 1);
  assert.equal(observedGenerationOf(conditionOnly, source("status")), undefined);
  assert.equal(observedGenerationOf(conditionOnly, source("condition")), 2);
  assert.equal(observedGenerationOf(conditionOnly, source("status_or_condition")), 2);
  assert.equal(
    observedGenerationOf(conditionOnly, { source: "condition", readyCondition: undefined }),
    undefined,
    "no readiness condition, nothing to read",
  );
});

test("the lag is generation minus observed, floored at 0, and unknown without either", () => {
  assert.equal(generationLag(both, source("status")), 2);
  assert.equal(generationLag(both, source("condition")), 1);
  assert.equal(generationLag(p({ generation: 1, status: { observedGeneration: 4 } }), source("status")), 0);
  assert.equal(generationLag(p({ generation: 2, status: {} }), source("status")), undefined);
  const noGeneration = widget({ status: { observedGeneration: 1 } });
  delete (noGeneration.metadata as Record<string, unknown>).generation;
  assert.equal(
    generationLag(projectObject(noGeneration, defaultProjectionSettings), source("status")),
    undefined,
  );
});

const NOW = 5_000;
const memory = (generation: number | undefined, requestedAt: number | undefined): ObjectMemory => ({
  generation,
  requestedAt,
  readySeen: false,
  reconciledGeneration: undefined,
});
/** generation 2 without managedFields: no server time says when it was requested. */
const gen2 = p({ generation: 2, status: { observedGeneration: 1 } });

test("requestTime: the server's time when the object has one, for first sight and later alike", () => {
  const created = p({ generation: 1 });
  assert.equal(requestTime(undefined, created, false, NOW), created.creationTimestamp);
  assert.equal(requestTime(memory(1, 10), created, false, NOW), created.creationTimestamp);
});

test("requestTime without server times: what the exporter saw", () => {
  assert.equal(
    requestTime(undefined, gen2, true, NOW),
    NOW,
    "first seen waiting: first sight (a lower bound)",
  );
  assert.equal(requestTime(undefined, gen2, false, NOW), undefined, "first seen caught up: unknown");
  assert.equal(requestTime(memory(2, 1_234), gen2, true, NOW), 1_234, "same generation: the time kept");
  assert.equal(requestTime(memory(2, 1_234), gen2, false, NOW), 1_234, "kept even once caught up");
  assert.equal(
    requestTime(memory(2, undefined), gen2, true, NOW),
    NOW,
    "same generation, unknown, now lagging",
  );
  assert.equal(
    requestTime(memory(2, undefined), gen2, false, NOW),
    undefined,
    "same generation, still unknown",
  );
  assert.equal(requestTime(memory(1, 1_234), gen2, false, NOW), NOW, "the generation changed while watched");
  assert.equal(
    requestTime(memory(undefined, undefined), gen2, false, NOW),
    undefined,
    "never had a generation",
  );
});

test("requestTime: an object without metadata.generation has no request time, whatever else it has", () => {
  const raw = widget({
    managedFields: [
      { manager: "kubectl", operation: "Update", time: "2026-01-01T00:30:00Z", fieldsV1: { "f:spec": {} } },
    ],
  });
  delete (raw.metadata as Record<string, unknown>).generation;
  const state = projectObject(raw, defaultProjectionSettings);
  assert.notEqual(state.specChangedAt, undefined, "the spec write time is known");
  assert.equal(requestTime(undefined, state, true, NOW), undefined);
  assert.equal(requestTime(memory(1, 10), state, true, NOW), undefined);
});
