// Parses OpenMetrics for real: a real Prometheus (the Debian binary) scrapes
// each document from a loopback file server that answers with the OpenMetrics
// content type, which makes Prometheus use its OpenMetrics parser (2.42 has no
// scrape_protocols setting; it picks the parser from the Content-Type). A
// document passes when its target is up and Prometheus ingested exactly the
// samples and series it holds; otherwise the verdict carries the parser's error.

import http from "node:http";
import type { AddressInfo } from "node:net";
import type { PrometheusMajor } from "../prometheus/binaries.ts";
import { PrometheusServer } from "../prometheus/server.ts";

export const openMetricsContentType = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/** What Prometheus made of one document. */
export interface OpenMetricsVerdict {
  /** 1 when Prometheus parsed the whole document. */
  up: number;
  /** Prometheus' scrape error (the parser's message when up is 0). */
  lastError: string;
  /** Samples Prometheus read (scrape_samples_scraped). */
  samplesScraped: number;
  /** Distinct series stored from the document. */
  seriesStored: number;
  /** Sample lines in the document, counted here. */
  samplesInDocument: number;
  /** Distinct series in the document (name and label set), counted here. */
  seriesInDocument: number;
}

function countDocument(text: string): { samples: number; series: number } {
  const series = new Set<string>();
  let samples = 0;
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    samples++;
    // The series is everything before the value: name and label set (label values may hold spaces).
    const end = line.lastIndexOf("}");
    series.add(end >= 0 ? line.slice(0, end + 1) : (line.split(" ")[0] ?? line));
  }
  return { samples, series: series.size };
}

/** Serves each document at /<job> with the OpenMetrics content type. */
async function serveDocuments(documents: Record<string, string>): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const body = documents[(req.url ?? "/").slice(1)];
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": openMetricsContentType }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

/**
 * Has a real Prometheus scrape every document (keyed by a job name made of
 * letters, digits and '_') once, and reports per job what it parsed.
 * Everything it starts is stopped before it returns, pass or fail.
 */
export async function parseOpenMetricsWithPrometheus(
  documents: Record<string, string>,
  timeoutMs = 60_000,
  major: PrometheusMajor = "2",
): Promise<Record<string, OpenMetricsVerdict>> {
  const jobs = Object.keys(documents);
  for (const job of jobs) {
    if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(job))
      throw new Error(`job name ${JSON.stringify(job)}: expected [a-zA-Z_][a-zA-Z0-9_]*`);
  }
  const files = await serveDocuments(documents);
  let prometheus: PrometheusServer | undefined;
  try {
    const address = `127.0.0.1:${(files.address() as AddressInfo).port}`;
    prometheus = await PrometheusServer.start({
      scrape: jobs.map((job) => ({ job, targets: [address], metricsPath: `/${job}`, honorLabels: true })),
      major,
    });
    const server = prometheus;
    const scalar = async (expr: string): Promise<number> =>
      Number((await server.query(expr))[0]?.value?.[1] ?? NaN);
    const verdicts: Record<string, OpenMetricsVerdict> = {};
    for (const job of jobs) {
      // The first scrape is done once its `up` sample exists.
      await server.waitFor(
        `the first scrape of ${job}`,
        async () => ((await server.query(`up{job="${job}"}`)).length > 0 ? true : undefined),
        timeoutMs,
      );
      const target = (await server.targets()).find((t) => t.labels.job === job);
      const counted = countDocument(documents[job] ?? "");
      verdicts[job] = {
        up: await scalar(`up{job="${job}"}`),
        lastError: target?.lastError ?? "",
        samplesScraped: await scalar(`scrape_samples_scraped{job="${job}"}`),
        // Prometheus' own series (up, scrape_*) are not the document's.
        seriesStored: await scalar(
          `count({job="${job}",__name__!~"up|scrape_duration_seconds|scrape_samples_scraped|scrape_samples_post_metric_relabeling|scrape_series_added"}) or vector(0)`,
        ),
        samplesInDocument: counted.samples,
        seriesInDocument: counted.series,
      };
    }
    return verdicts;
  } finally {
    await prometheus?.stop();
    await new Promise<void>((resolve) => {
      files.closeAllConnections();
      files.close(() => resolve());
    });
  }
}

/** Throws with Prometheus' parse error, or the counts that differ, unless the document parsed whole. */
export function assertParsedWhole(job: string, verdict: OpenMetricsVerdict | undefined): void {
  if (!verdict) throw new Error(`${job}: no verdict`);
  const problems: string[] = [];
  if (verdict.up !== 1)
    problems.push(`Prometheus could not parse it (up=${verdict.up}): ${verdict.lastError}`);
  if (verdict.samplesScraped !== verdict.samplesInDocument)
    problems.push(
      `Prometheus read ${verdict.samplesScraped} samples, the document has ${verdict.samplesInDocument}`,
    );
  if (verdict.seriesStored !== verdict.seriesInDocument)
    problems.push(
      `Prometheus stored ${verdict.seriesStored} series, the document has ${verdict.seriesInDocument}`,
    );
  if (problems.length > 0) throw new Error(`${job}: ${problems.join("; ")}`);
}
