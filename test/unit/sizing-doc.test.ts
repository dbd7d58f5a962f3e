// docs/sizing.md quotes the last benchmark run: its generated table equals
// what bench/lib/sizing-table.ts makes of bench/results/latest.json, so the
// figures users size pods by cannot drift from the measurements.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { sizingBlock, spliceSizing } from "../../bench/lib/sizing-table.ts";

const root = new URL("../../", import.meta.url);

test("docs/sizing.md's table is bench/results/latest.json's run", () => {
  const latest = JSON.parse(readFileSync(new URL("bench/results/latest.json", root), "utf8"));
  const doc = readFileSync(new URL("docs/sizing.md", root), "utf8");
  assert.equal(doc, spliceSizing(doc, sizingBlock(latest.run)), "run bench/run.ts, or splice the block anew");
  // The 50,000 row: 20 series per object plus the exporter's own (their number changes with its self-metrics).
  assert.match(doc, /\|\s+50,000 \| 1,000,\d{3} \|\s+\d+ \/ \d+ MiB \|/);
});

test("the table reads the default set's figures: a changed measurement changes the doc", () => {
  const latest = JSON.parse(readFileSync(new URL("bench/results/latest.json", root), "utf8"));
  const before = sizingBlock(latest.run);
  latest.run.sizes[0].subjects.default.rssAfterChurnBytes += 100 * 2 ** 20;
  assert.notEqual(sizingBlock(latest.run), before);
});
