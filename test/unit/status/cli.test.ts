// `cr-status-exporter status` against the real API routes on a loopback port
// (server mode), with golden table output and the --fail-if-not-ready exit codes.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { describe, test } from "node:test";
import { parse } from "yaml";
import { runSubcommand } from "../../../src/cli/index.ts";
import { formatTable } from "../../../src/cli/status-output.ts";
import { shortDuration, utcTime } from "../../../src/status/format.ts";
import { captureIo } from "../../support/capture-io.ts";
import { statusFleet } from "../../support/status-fleet.ts";
import { serveStatus } from "../../support/status-server.ts";
import { fixedSource } from "../../support/views.ts";

const golden = (name: string) => new URL(`../../golden/${name}`, import.meta.url);

/** Compares with a golden file; UPDATE_GOLDEN=1 rewrites it. */
function assertGolden(actual: string, name: string): void {
  if (process.env.UPDATE_GOLDEN) writeFileSync(golden(name), actual);
  assert.equal(actual, readFileSync(golden(name), "utf8"), `differs from test/golden/${name}`);
}

async function status(t: Parameters<typeof serveStatus>[0], args: string[]) {
  const url = await serveStatus(t, fixedSource(statusFleet()));
  const io = captureIo();
  const code = await runSubcommand(["status", "--server", url, ...args], io);
  return { code, ...io };
}

describe("status from a running exporter's API", () => {
  test("the table, longest not Ready first (golden)", async (t) => {
    const r = await status(t, ["--not-ready"]);
    assert.equal(r.code, 0, r.err);
    assertGolden(r.out, "status-not-ready.txt");
  });

  test("-o wide adds status, generations, phase, flapping and the message (golden)", async (t) => {
    const r = await status(t, ["-o", "wide", "-n", "search"]);
    assert.equal(r.code, 0, r.err);
    assertGolden(r.out, "status-wide-search.txt");
  });

  test("-o wide shows an object's latest Warning event: reason, how long ago, message", async (t) => {
    const r = await status(t, ["-o", "wide", "--name", "stuck"]);
    assert.equal(r.code, 0, r.err);
    const [header, row] = r.out.trimEnd().split("\n");
    assert.ok(header?.endsWith("LAST WARNING"), header);
    assert.ok(
      row?.endsWith(
        'Failed (45s ago): Failed to pull image "registry.example.com/shop/widget:v2": manifest unknown',
      ),
      row,
    );
  });

  test("-o json and -o yaml carry the API's items", async (t) => {
    const json = await status(t, ["-o", "json", "--kind", "Gadget"]);
    const items = (JSON.parse(json.out) as { items: { name: string; result: string }[] }).items;
    assert.deepEqual(
      items.map((i) => [i.name, i.result]),
      [["edge-gadget", "Unknown"]],
    );
    const yaml = await status(t, ["-o", "yaml", "--kind", "gadget"]);
    assert.deepEqual(parse(yaml.out), JSON.parse(json.out));
  });

  test("--name keeps the objects whose name contains it", async (t) => {
    const r = await status(t, ["-o", "json", "--name", "STUCK"]);
    assert.equal(r.code, 0, r.err);
    const names = (JSON.parse(r.out) as { items: { name: string }[] }).items.map((i) => i.name);
    assert.ok(names.length > 0 && names.every((n) => n.includes("stuck")), names.join(","));
    const all = (JSON.parse((await status(t, ["-o", "json"])).out) as { items: unknown[] }).items;
    assert.ok(names.length < all.length);
  });

  test("--watch lists again every --interval seconds until interrupted (exit 0), each pass under a time line", async (t) => {
    const url = await serveStatus(t, fixedSource(statusFleet()));
    const io = captureIo(2);
    const code = await runSubcommand(
      ["status", "--server", url, "--not-ready", "--watch", "--interval", "5"],
      io,
    );
    assert.equal(code, 0, io.err);
    assert.deepEqual(io.paused, [5000, 5000, 5000], "two pauses slept, the third interrupted");
    const passes = io.out.split(/^Every 5s: cr-status-exporter status · \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/m);
    assert.equal(passes.length, 4, io.out);
    for (const pass of passes.slice(1)) assert.match(pass, /stuck-widget/);
    assert.ok(!io.out.includes("\x1b["), "no terminal codes when stdout is not a terminal");
  });

  test("--watch on a terminal redraws in place; an unreachable server is said and retried", async () => {
    const io = captureIo(1, true);
    const code = await runSubcommand(["status", "--server", "http://127.0.0.1:1", "-w"], io);
    assert.equal(code, 0);
    assert.equal(io.out.split("\x1b[H\x1b[2J").length, 3, "cleared before each of the two passes");
    assert.equal(io.err.match(/cannot reach http:\/\/127\.0\.0\.1:1/g)?.length, 2, io.err);
  });

  test("pages are followed: every object comes back once", async (t) => {
    const many = Array.from({ length: 1203 }, (_, i) => ({
      ...statusFleet()[0],
      name: `w${i}`,
      uid: `u${i}`,
    })) as ReturnType<typeof statusFleet>;
    const url = await serveStatus(t, fixedSource(many));
    const io = captureIo();
    assert.equal(await runSubcommand(["status", "--server", url, "-o", "json"], io), 0, io.err);
    const names = (JSON.parse(io.out) as { items: { name: string }[] }).items.map((i) => i.name);
    assert.equal(names.length, 1203);
    assert.equal(new Set(names).size, 1203);
  });

  const exitCodes: [string, string[], number][] = [
    ["something not Ready matches", ["--fail-if-not-ready"], 1],
    ["nothing matches", ["--fail-if-not-ready", "--kind", "Widget", "-n", "nowhere"], 0],
    ["a label selector that matches only Ready objects", ["--fail-if-not-ready", "-l", "app=shop"], 0],
    ["without the flag", ["--not-ready"], 0],
    ["a bad flag", ["--output", "xml"], 2],
    ["a bad selector, refused by the API", ["-l", "a in (b)"], 2],
    ["a Failed widget named by its plural", ["--fail-if-not-ready", "--kind", "widgets"], 1],
    ["a Failed widget named by plural.group", ["--fail-if-not-ready", "--kind", "WIDGETS.example.com"], 1],
    ["a misspelt kind is an error, not a green gate", ["--fail-if-not-ready", "--kind", "Widgetz"], 2],
    ["a gate cannot watch", ["--fail-if-not-ready", "--watch"], 2],
    ["--interval without --watch", ["--interval", "5"], 2],
    ["a zero interval", ["--watch", "--interval", "0"], 2],
  ];
  test("a kind that names nothing is said with the watched kinds, and nothing is listed", async (t) => {
    const r = await status(t, ["--kind", "Widget,Widgetz"]);
    assert.equal(r.code, 2);
    assert.equal(r.out, "");
    assert.match(
      r.err,
      /--kind Widgetz: no watched kind has this name .*watched: Gadget \(gadgets\.[^)]+\), Widget \(widgets\.example\.com\)/,
    );
  });

  for (const [title, args, expected] of exitCodes) {
    test(`exit code ${expected}: ${title}`, async (t) => {
      const r = await status(t, args);
      assert.equal(r.code, expected, `stdout:\n${r.out}\nstderr:\n${r.err}`);
    });
  }

  test("an unreachable server is an error that names it", async () => {
    const io = captureIo();
    assert.equal(await runSubcommand(["status", "--server", "http://127.0.0.1:9"], io), 2);
    assert.match(io.err, /cannot reach http:\/\/127\.0\.0\.1:9\/api\/v1\/objects/);
  });
});

test("argv without a subcommand is left to the exporter", async () => {
  assert.equal(await runSubcommand(["--config", "x.yaml"], captureIo()), undefined);
  assert.equal(await runSubcommand([], captureIo()), undefined);
});

test("tables pad every column but the last", () => {
  assert.equal(
    formatTable([
      ["A", "BB", "C"],
      ["long", "x", "tail"],
    ]),
    "A      BB   C\nlong   x    tail\n",
  );
});

test("durations read like kubectl's", () => {
  const cases: [number, string][] = [
    [-5, "0s"],
    [59, "59s"],
    [119, "119s"],
    [150, "2m30s"],
    [600, "10m"],
    [3 * 3600 + 59, "3h"],
    [5 * 3600 + 30 * 60, "5h30m"],
    [30 * 3600, "30h"],
    [3 * 86400 + 7200, "3d2h"],
    [40 * 86400, "40d"],
  ];
  for (const [seconds, text] of cases) assert.equal(shortDuration(seconds), text, `${seconds}s`);
});

test("durations change unit at 2 minutes, 10 minutes, 3 hours, 8 hours, 2 days and 8 days; fractions are cut", () => {
  const cases: [number, string][] = [
    [59.9, "59s"],
    [120, "2m"],
    [121, "2m1s"],
    [599, "9m59s"],
    [3 * 3600 - 1, "179m"],
    [3 * 3600, "3h"],
    [3 * 3600 + 60, "3h1m"],
    [4 * 3600, "4h"],
    [8 * 3600 - 1, "7h59m"],
    [8 * 3600, "8h"],
    [2 * 86400 - 1, "47h"],
    [2 * 86400, "2d"],
    [2 * 86400 + 3600, "2d1h"],
    [8 * 86400 - 1, "7d23h"],
    [8 * 86400, "8d"],
  ];
  for (const [seconds, text] of cases) assert.equal(shortDuration(seconds), text, `${seconds}s`);
});

test("times read as UTC to the second", () => {
  assert.equal(utcTime(0), "1970-01-01 00:00:00 UTC");
  assert.equal(utcTime(1_800_000_000.9), "2027-01-15 08:00:00 UTC");
});
