// The catalog's derived names: every family's full name by key, for any
// prefix (what alerts, dashboards and tests refer to).
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  aggregateFamilies,
  defaultMetricPrefix,
  fixedFamilySuffixes,
  metricNames,
  objectFamilies,
  perKindFamilies,
} from "../../src/core/series/catalog.ts";

test("metricNames: every family of every table by key, with the prefix given (cr_ by default)", () => {
  const expected = (prefix: string) =>
    Object.fromEntries([
      ...[...objectFamilies, ...aggregateFamilies, ...perKindFamilies].map((f) => [f.key, prefix + f.suffix]),
      ...Object.entries(fixedFamilySuffixes).map(([key, suffix]) => [key, prefix + suffix]),
    ]);
  assert.equal(defaultMetricPrefix, "cr_");
  assert.deepEqual(metricNames(), expected("cr_"));
  assert.deepEqual(metricNames("acme_"), expected("acme_"));
  assert.equal(metricNames("acme_").condition, "acme_condition");
  assert.equal(metricNames().resourceSynced, "cr_exporter_resource_synced");
});
