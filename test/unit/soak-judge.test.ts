// The soak's verdict: growth of the RSS floor after the warm-up, so the
// garbage collector's saw-tooth decides nothing and kept memory does.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  judgeSoak as judgeOrNot,
  type SoakJudgement,
  type SoakSample,
  soakChart,
  warmupSeconds,
} from "../../bench/lib/soak-report.ts";

const MiB = 1024 * 1024;

/** A judged run (these are long enough). */
function judgeSoak(samples: SoakSample[], durationSeconds: number): SoakJudgement {
  const judgement = judgeOrNot(samples, durationSeconds);
  if (!("pass" in judgement)) throw new Error(judgement.notJudged);
  return judgement;
}

function run(minutes: number, rssMiB: (t: number) => number, everySeconds = 10): SoakSample[] {
  return Array.from({ length: (minutes * 60) / everySeconds + 1 }, (_, i) => {
    const t = i * everySeconds;
    return { t, rssBytes: rssMiB(t) * MiB, cpuSeconds: t / 10 };
  });
}

test("the warm-up is a fifth of the run, at least 5 minutes", () => {
  assert.equal(warmupSeconds(3600), 720);
  assert.equal(warmupSeconds(300), 300);
});

test("flat after a warm-up climb: pass, however high the climb", () => {
  const judgement = judgeSoak(
    run(60, (t) => (t < 600 ? 200 + t / 10 : 260)),
    3600,
  );
  assert.equal(judgement.pass, true);
  assert.equal(judgement.growthPercent, 0);
  assert.equal(judgement.baselineMiB, 260);
});

test("a steady leak of 8 % over the hour after warm-up fails", () => {
  const judgement = judgeSoak(
    run(60, (t) => 250 * (1 + (0.08 * Math.max(0, t - 720)) / 2880)),
    3600,
  );
  assert.equal(judgement.pass, false);
  assert.ok(judgement.growthPercent > 5 && judgement.growthPercent < 8, String(judgement.growthPercent));
  assert.ok(judgement.slopeMiBPerHour > 20, String(judgement.slopeMiBPerHour));
});

test("a saw-tooth from garbage collection passes; the same saw-tooth on a rising floor fails", () => {
  const saw = (t: number) => 250 + ((t % 200) / 200) * 120;
  assert.equal(judgeSoak(run(60, saw), 3600).pass, true);
  const rising = judgeSoak(
    run(60, (t) => saw(t) + (30 * Math.max(0, t - 720)) / 2880),
    3600,
  );
  assert.equal(rising.pass, false, JSON.stringify(rising));
});

test("one spike at the end decides nothing", () => {
  const judgement = judgeSoak(
    run(60, (t) => (t === 3600 ? 400 : 250)),
    3600,
  );
  assert.equal(judgement.pass, true);
  assert.equal(judgement.maxAfterWarmupMiB, 400);
});

test("too few samples after the warm-up are refused, not judged", () => {
  assert.throws(
    () =>
      judgeSoak(
        run(1, () => 200, 30),
        60,
      ),
    /too few to judge/,
  );
});

test("the chart draws every sample, the warm-up and the limit", () => {
  const samples = run(15, () => 250);
  const svg = soakChart(samples, judgeSoak(samples, 900), "t");
  assert.match(svg, /^<svg /);
  assert.equal((svg.match(/<polyline points="([^"]+)"/)?.[1] ?? "").split(" ").length, samples.length);
  assert.match(svg, /warm-up/);
  assert.match(svg, /floor \+ 5 %/);
  const short = run(5, () => 250);
  assert.doesNotMatch(
    soakChart(short, judgeOrNot(short, 300), "t"),
    /floor \+/,
    "no floor drawn when not judged",
  );
});
