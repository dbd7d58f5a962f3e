import assert from "node:assert/strict";
import { test } from "node:test";
import { byteString } from "../../src/core/series/exposition.ts";
import { ChunkWriter } from "../../src/metrics/chunks.ts";
import { createSelfMetrics } from "../../src/metrics/self-metrics.ts";
import { type SeriesSource, withoutEmptyFamilies, writeExposition } from "../../src/metrics/writer.ts";
import { eachInSlices } from "../../src/status/slices.ts";
import { fakeTurns } from "../support/turns.ts";

async function render(
  openMetrics: boolean,
  registry = createSelfMetrics("cr_", "t").registry,
): Promise<string> {
  let text = "";
  for await (const chunk of writeExposition({ sources: [], registry, prefix: "cr_", openMetrics }))
    text += chunk;
  return Buffer.from(text, "latin1").toString("utf8");
}

test("an OpenMetrics scrape does not change how later Prometheus-format scrapes name counters", async () => {
  const metrics = createSelfMetrics("cr_", "t");
  metrics.relists.inc({ group: "g", version: "v1", kind: "K", reason: "initial" });
  const before = await render(false, metrics.registry);
  const om = await render(true, metrics.registry);
  const after = await render(false, metrics.registry);
  assert.match(before, /^cr_exporter_relists_total\{/m);
  assert.match(om, /^# TYPE cr_exporter_relists counter$/m);
  assert.match(om, /^cr_exporter_relists_total\{/m);
  assert.match(om, /# EOF\n$/);
  assert.match(after, /^# TYPE cr_exporter_relists_total counter$/m);
  assert.match(after, /^cr_exporter_relists_total\{/m);
});

test("chunks: about chunkBytes each, a family's header only before its first series, bytes exactly the text", () => {
  const out = new ChunkWriter(100);
  out.setHeader("# HELP a\n");
  for (let i = 0; i < 30; i++) out.write(byteString(`a{n="${i}",x="ü"} 1\n`));
  out.setHeader("# HELP b\n");
  out.setHeader(undefined); // b had no series: no header
  const chunks = out.end();
  const text = Buffer.from(chunks.join(""), "latin1").toString("utf8");
  assert.equal(text.split("# HELP").length - 1, 1);
  assert.ok(text.startsWith('# HELP a\na{n="0",x="ü"} 1\n'));
  assert.equal(text.split("\n").filter((l) => l.startsWith("a{")).length, 30);
  assert.ok(chunks.length >= 5, `${chunks.length} chunks`);
  for (const chunk of chunks.slice(0, -1))
    assert.ok(chunk.length >= 100 && chunk.length < 140, `${chunk.length}`);
});

test("registry families without samples are left out, HELP and TYPE included", () => {
  const text = [
    "# HELP empty_total Nothing counted.",
    "# TYPE empty_total counter",
    "# HELP seen Something.",
    "# TYPE seen gauge",
    "seen 1",
    "# TYPE bare gauge",
    "# HELP h A histogram.",
    "# TYPE h histogram",
    'h_bucket{le="+Inf"} 0',
    "h_sum 0",
    "h_count 0",
    "# EOF",
    "",
  ].join("\n");
  assert.equal(
    withoutEmptyFamilies(text),
    '# HELP seen Something.\n# TYPE seen gauge\nseen 1\n# HELP h A histogram.\n# TYPE h histogram\nh_bucket{le="+Inf"} 0\nh_sum 0\nh_count 0\n',
  );
});

test("a scrape writes only while a turn's budget lasts, three turns of four while a status walk waits", async () => {
  const { clock, turns } = fakeTurns(5);
  const writtenInTurn: number[] = [];
  // A source whose every line takes 1 ms to "copy" and fills a 64-byte chunk.
  const source: SeriesSource = {
    *write(family, out) {
      if (family.kind !== "object" || family.slot !== 0) return;
      for (let i = 0; i < 40; i++) {
        out.write(byteString(`cr_info{n="${String(i).padStart(40, "0")}"} 1\n`));
        writtenInTurn.push(clock.turns);
        clock.now += 1;
        if (out.ready) yield;
      }
    },
  };
  let otherWalkTurns: number[] = [];
  const scrape = (async () => {
    let text = "";
    const registry = createSelfMetrics("cr_", "t").registry;
    for await (const chunk of writeExposition({
      sources: [source],
      registry,
      prefix: "cr_",
      openMetrics: false,
      turns,
      chunkBytes: 64,
    }))
      text += chunk;
    return text;
  })();
  const other = eachInSlices(
    Array.from({ length: 40 * 256 }, (_, i) => i),
    (i) => {
      if (i % 256 === 0) otherWalkTurns.push(clock.turns);
      clock.now += 1 / 256;
    },
    turns,
  );
  const [text] = await Promise.all([scrape, other]);
  assert.equal(text.split("\n").filter((l) => l.startsWith("cr_info{")).length, 40);
  // 40 lines of 1 ms, 2 to a chunk, the budget (5 ms) looked at after each chunk: 6 lines a turn. A scrape's
  // turns come first (three of four), the status walk's in between.
  assert.deepEqual([...new Set(writtenInTurn)], [1, 2, 3, 5, 6, 7, 9]);
  otherWalkTurns = [...new Set(otherWalkTurns)];
  for (const turn of otherWalkTurns)
    assert.ok(!writtenInTurn.includes(turn), `turn ${turn} ran both the scrape and the walk`);
});
