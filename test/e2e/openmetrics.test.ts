// OpenMetrics output parsed by Prometheus' own OpenMetrics parser (a real
// Prometheus scraping it, test/support/openmetrics-check.ts): the golden file,
// and a live scrape of the exporter on a real kube-apiserver, asked for with
// the Accept header Prometheus sends. A copy of the golden with a blank line
// before "# EOF" must be rejected, or the check would prove nothing.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { condition, createCr, installCrd, patchStatus, refFor, useControlPlane } from "../cluster/index.ts";
import { eventually, runExporter } from "../support/exporter.ts";
import {
  assertParsedWhole,
  type OpenMetricsVerdict,
  parseOpenMetricsWithPrometheus,
} from "../support/openmetrics-check.ts";

// What Prometheus 2.42 sends: OpenMetrics first, the text format as a fallback.
const prometheusAccept =
  "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75," +
  "text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

const golden = readFileSync(new URL("../golden/widgets.openmetrics", import.meta.url), "utf8");
const testbed = useControlPlane();
let live: { contentType: string; body: string };
let verdicts: Record<string, OpenMetricsVerdict>;
/** The same documents through Prometheus 3's parser (kube-prometheus-stack's). */
let verdicts3: Record<string, OpenMetricsVerdict>;

before(async () => {
  const rest = (await testbed.ready()).admin.rest;
  await installCrd(rest, "widgets");
  const ns = await testbed.plane.createNamespace("om");
  const exporter = await runExporter(testbed.plane.kubeconfigPath, {
    resources: [{ group: "example.com", resource: "widgets" }],
  });
  try {
    const ref = refFor("widgets", ns, "hostile");
    await createCr(rest, ref, "hostile", { size: 1 });
    // A reason becomes a label value: quotes, a backslash and a newline must come out escaped.
    await patchStatus(rest, ref, {
      observedGeneration: 1,
      phase: "Running",
      conditions: [condition("Ready", "False", 'Quote"Back\\slash\nNewline', "message", 1)],
    });
    live = await eventually("the widget in an OpenMetrics scrape", async () => {
      const response = await fetch(`${exporter.exporter.url}/metrics`, {
        headers: { Accept: prometheusAccept },
      });
      const body = await response.text();
      // Wait for the patched reason itself (escaped or not): "Ready" alone also appears in HELP
      // text and in the series of the widget's creation, before its status is written.
      return body.includes('name="hostile"') && body.includes("Quote")
        ? { contentType: response.headers.get("content-type") ?? "", body }
        : undefined;
    });
  } finally {
    await exporter.stop();
  }
  const documents = {
    golden,
    golden_blank_line_before_eof: golden.replace(/# EOF\n$/, "\n# EOF\n"),
    exporter_live: live.body,
  };
  verdicts = await parseOpenMetricsWithPrometheus(documents);
  verdicts3 = await parseOpenMetricsWithPrometheus(documents, 60_000, "3");
});

after(() => {
  if (verdicts) console.error(`# verdicts: ${JSON.stringify(verdicts)}`);
  if (verdicts3) console.error(`# verdicts of Prometheus 3: ${JSON.stringify(verdicts3)}`);
});

test("the golden OpenMetrics file parses whole: target up, every sample and series ingested", () => {
  assertParsedWhole("golden", verdicts.golden);
  assert.ok((verdicts.golden?.seriesInDocument ?? 0) > 40, "the golden holds a real fleet, not a stub");
});

test("the checker rejects what Prometheus rejects: a blank line before # EOF", () => {
  const verdict = verdicts.golden_blank_line_before_eof;
  assert.equal(verdict?.up, 0);
  assert.match(verdict?.lastError ?? "", /not a valid start token/);
  assert.throws(() => assertParsedWhole("golden_blank_line_before_eof", verdict), /could not parse it/);
});

test("the exporter answers Prometheus' Accept header with OpenMetrics that parses whole, escaped label values included", () => {
  assert.match(live.contentType, /^application\/openmetrics-text; version=1\.0\.0/);
  assert.ok(
    live.body.includes(String.raw`reason="Quote\"Back\\slash\nNewline"`),
    "the reason label value is escaped (quote, backslash, newline)",
  );
  assert.match(live.body, /# EOF\n$/);
  assertParsedWhole("exporter_live", verdicts.exporter_live);
});

test("Prometheus 3 parses the golden and the live scrape whole too, and rejects the broken copy", () => {
  assertParsedWhole("golden", verdicts3.golden);
  assertParsedWhole("exporter_live", verdicts3.exporter_live);
  assert.equal(verdicts3.golden_blank_line_before_eof?.up, 0);
});
