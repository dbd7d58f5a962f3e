// Where and how metrics are pushed, from the otlpMetrics section and the
// OTEL_* variables (src/otlp-metrics/settings.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { resourceAttributes } from "../../../src/app/otlp-metrics.ts";
import { defaultOtlpMetrics, type OtlpMetricsConfig } from "../../../src/config/otlp-metrics.ts";
import { validateConfig } from "../../../src/config/validate.ts";
import { keyValueList, resolveOtlpMetrics } from "../../../src/otlp-metrics/settings.ts";

const config = (over: Partial<OtlpMetricsConfig> = {}): OtlpMetricsConfig => ({
  ...defaultOtlpMetrics,
  ...over,
});

function on(c: OtlpMetricsConfig, env: Record<string, string>) {
  const decision = resolveOtlpMetrics(c, env);
  assert.ok(decision.on, JSON.stringify(decision));
  return decision.settings;
}

test("off unless asked for: a base OTEL_EXPORTER_OTLP_ENDPOINT alone (set for traces) does not push metrics", () => {
  assert.equal(resolveOtlpMetrics(config(), {}).on, false);
  assert.equal(resolveOtlpMetrics(config(), { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }).on, false);
  assert.deepEqual(
    resolveOtlpMetrics(config({ endpoint: "http://c:4318" }), { OTEL_METRICS_EXPORTER: "none" }),
    {
      on: false,
      reason: "OTEL_METRICS_EXPORTER=none",
    },
  );
  assert.equal(resolveOtlpMetrics(config({ enabled: false }), { OTEL_METRICS_EXPORTER: "otlp" }).on, false);
  assert.equal(resolveOtlpMetrics(config({ enabled: true }), { OTEL_SDK_DISABLED: "true" }).on, false);
});

test("endpoints: a base gets /v1/metrics, a metrics endpoint is used as given; the file wins, the specific variable over the general", () => {
  const env = { OTEL_METRICS_EXPORTER: "otlp" };
  assert.equal(on(config(), env).target.url, "http://localhost:4318/v1/metrics");
  assert.equal(
    on(config(), { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/base/" }).target.url,
    "http://c:4318/base/v1/metrics",
  );
  const both = {
    OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
    OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "http://m:9/x",
  };
  assert.deepEqual(on(config(), both).target, {
    url: "http://m:9/x",
    source: "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
    protocol: "http/protobuf",
  });
  const file = on(config({ endpoint: "https://f:4318" }), both).target;
  assert.equal(file.url, "https://f:4318/v1/metrics");
  assert.equal(file.source, "otlpMetrics.endpoint");
  assert.equal(
    on(config({ endpoint: "http://f", metricsEndpoint: "http://g/m" }), {}).target.url,
    "http://g/m",
  );
  assert.match(
    on(config({ endpoint: "http://f/v1/metrics" }), {}).target.warning ?? "",
    /already ends in \/v1\/metrics/,
  );
});

test("protocol, headers, compression, timeouts and interval: file over OTEL_EXPORTER_OTLP_METRICS_* over OTEL_EXPORTER_OTLP_* over defaults", () => {
  const env = {
    OTEL_METRICS_EXPORTER: "otlp",
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
    OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "http/json",
    OTEL_EXPORTER_OTLP_HEADERS: "a=1",
    OTEL_EXPORTER_OTLP_METRICS_HEADERS: "authorization=Bearer%20abc, x-tenant = t1",
    OTEL_EXPORTER_OTLP_COMPRESSION: "gzip",
    OTEL_EXPORTER_OTLP_TIMEOUT: "2000",
    OTEL_EXPORTER_OTLP_METRICS_TIMEOUT: "3000",
    OTEL_METRIC_EXPORT_INTERVAL: "15000",
    OTEL_METRIC_EXPORT_TIMEOUT: "5000",
  };
  const s = on(config(), env);
  assert.equal(s.target.protocol, "http/json");
  assert.deepEqual(s.headers, { authorization: "Bearer abc", "x-tenant": "t1" });
  assert.equal(s.compression, "gzip");
  assert.deepEqual(
    [s.timeoutMs, s.intervalMs, s.exportTimeoutMs, s.temporality],
    [3000, 15000, 5000, "cumulative"],
  );
  const f = on(
    config({
      protocol: "http/protobuf",
      headers: { "x-tenant": "file" },
      compression: "none",
      timeoutSeconds: 1,
      intervalSeconds: 30,
      exportTimeoutSeconds: 4,
    }),
    env,
  );
  assert.equal(f.target.protocol, "http/protobuf");
  assert.deepEqual(f.headers, { authorization: "Bearer abc", "x-tenant": "file" });
  assert.deepEqual(
    [f.compression, f.timeoutMs, f.intervalMs, f.exportTimeoutMs],
    ["none", 1000, 30000, 4000],
  );
  const d = on(config({ enabled: true }), {});
  assert.deepEqual(
    [d.target.protocol, d.compression, d.timeoutMs, d.intervalMs, d.exportTimeoutMs],
    ["http/protobuf", "none", 10000, 60000, 30000],
  );
});

test("bad values are configuration errors naming the variable and the value", () => {
  const cases: [Record<string, string>, RegExp][] = [
    [
      { OTEL_METRICS_EXPORTER: "console" },
      /OTEL_METRICS_EXPORTER: expected otlp, prometheus or none, got "console"/,
    ],
    [
      { OTEL_METRICS_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "grpc" },
      /OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "grpc" is not supported/,
    ],
    [
      { OTEL_METRICS_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_COMPRESSION: "zstd" },
      /OTEL_EXPORTER_OTLP_COMPRESSION: expected gzip or none, got "zstd"/,
    ],
    [
      { OTEL_METRICS_EXPORTER: "otlp", OTEL_METRIC_EXPORT_INTERVAL: "1m" },
      /OTEL_METRIC_EXPORT_INTERVAL: expected a whole number of milliseconds ≥ 100, got "1m"/,
    ],
    [
      { OTEL_METRICS_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "collector:4318" },
      /OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: expected an http\(s\) URL/,
    ],
    [
      { OTEL_METRICS_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_HEADERS: "novalue" },
      /OTEL_EXPORTER_OTLP_HEADERS: expected key=value pairs, got "novalue"/,
    ],
    [
      { OTEL_METRICS_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: "delta" },
      /TEMPORALITY_PREFERENCE: "delta" is not supported: .*cumulativetodelta/,
    ],
  ];
  for (const [env, message] of cases) assert.throws(() => resolveOtlpMetrics(config(), env), message);
});

test("the otlpMetrics section is read and checked like every section", () => {
  const c = validateConfig({
    otlpMetrics: { endpoint: "http://c:4318", interval: "15s", headers: { "x-a": "b" }, compression: "gzip" },
  });
  assert.equal(c.otlpMetrics.intervalSeconds, 15);
  assert.deepEqual(c.otlpMetrics.headers, { "x-a": "b" });
  assert.throws(
    () => validateConfig({ otlpMetrics: { endpoint: "c:4318", protocol: "grpc", leaseName: "x", bogus: 1 } }),
    (e: Error) =>
      /otlpMetrics.bogus: unknown key/.test(e.message) &&
      /otlpMetrics.endpoint: expected an http\(s\) URL/.test(e.message) &&
      /otlpMetrics.protocol: expected http\/protobuf or http\/json/.test(e.message) &&
      /leaseName and leaseNamespace go together/.test(e.message),
  );
});

test("resource attributes: ours, then OTEL_RESOURCE_ATTRIBUTES, then OTEL_SERVICE_NAME", () => {
  const a = resourceAttributes({
    POD_NAME: "exp-0",
    OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=prod,service.name=x",
  });
  assert.equal(a["service.instance.id"], "exp-0");
  assert.equal(a["k8s.pod.name"], "exp-0");
  assert.equal(a["service.name"], "x");
  assert.equal(a["deployment.environment"], "prod");
  assert.ok(a["service.version"]);
  assert.equal(resourceAttributes({ OTEL_SERVICE_NAME: "mine" })["service.name"], "mine");
  assert.equal(resourceAttributes({})["k8s.pod.name"], undefined);
  assert.deepEqual(keyValueList("X", " a = %C3%A9 ,, b=c=d"), { a: "é", b: "c=d" });
});

test("why metrics are off is said in words naming the setting", () => {
  assert.deepEqual(resolveOtlpMetrics(config({ enabled: false }), { OTEL_METRICS_EXPORTER: "otlp" }), {
    on: false,
    reason: "otlpMetrics.enabled is false",
  });
  assert.deepEqual(resolveOtlpMetrics(config({ enabled: true }), { OTEL_SDK_DISABLED: " TRUE " }), {
    on: false,
    reason: "OTEL_SDK_DISABLED=true",
  });
  assert.deepEqual(resolveOtlpMetrics(config(), {}), {
    on: false,
    reason:
      "not asked for (otlpMetrics.enabled, an otlpMetrics endpoint, OTEL_METRICS_EXPORTER=otlp or OTEL_EXPORTER_OTLP_METRICS_ENDPOINT)",
  });
});

test("OTEL_METRICS_EXPORTER: items trimmed and case-folded; prometheus (the /metrics pull) is allowed and asks for nothing", () => {
  assert.equal(resolveOtlpMetrics(config(), { OTEL_METRICS_EXPORTER: " OTLP , prometheus " }).on, true);
  assert.equal(resolveOtlpMetrics(config(), { OTEL_METRICS_EXPORTER: "prometheus" }).on, false);
  assert.throws(
    () => resolveOtlpMetrics(config(), { OTEL_METRICS_EXPORTER: "otlp,console,zipkin" }),
    /got "otlp,console,zipkin" \(console, zipkin is not supported\)/,
  );
});

test("each endpoint's source names where it came from", () => {
  const env = { OTEL_METRICS_EXPORTER: "otlp" };
  assert.deepEqual(on(config({ metricsEndpoint: "http://m:1/x" }), env).target, {
    url: "http://m:1/x",
    source: "otlpMetrics.metricsEndpoint",
    protocol: "http/protobuf",
  });
  assert.equal(
    on(config(), { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }).target.source,
    "OTEL_EXPORTER_OTLP_ENDPOINT",
  );
  assert.equal(on(config(), env).target.source, "otlpMetrics (default endpoint)");
});

test("milliseconds: whole numbers from the minimum up to 2^31-1, surrounding spaces allowed", () => {
  const env = { OTEL_METRICS_EXPORTER: "otlp" };
  assert.equal(on(config(), { ...env, OTEL_METRIC_EXPORT_INTERVAL: "100" }).intervalMs, 100);
  assert.equal(
    on(config(), { ...env, OTEL_METRIC_EXPORT_INTERVAL: " 2147483647 " }).intervalMs,
    2_147_483_647,
  );
  assert.equal(on(config(), { ...env, OTEL_METRIC_EXPORT_TIMEOUT: "1" }).exportTimeoutMs, 1);
  for (const [variable, raw, min] of [
    ["OTEL_METRIC_EXPORT_INTERVAL", "99", 100],
    ["OTEL_METRIC_EXPORT_INTERVAL", "2147483648", 100],
    ["OTEL_METRIC_EXPORT_INTERVAL", "150.5", 100],
    ["OTEL_METRIC_EXPORT_TIMEOUT", "0", 1],
  ] as const) {
    assert.throws(
      () => resolveOtlpMetrics(config(), { ...env, [variable]: raw }),
      (e: Error) =>
        e.message.includes(`${variable}: expected a whole number of milliseconds ≥ ${min}, got "${raw}"`),
      `${variable}=${raw}`,
    );
  }
});

test("headers: blank items skipped; a bad item or a bad percent-encoding is an error naming the variable", () => {
  assert.deepEqual(keyValueList("X", "a=1, ,b=2,"), { a: "1", b: "2" });
  assert.throws(
    () => keyValueList("X", "a=1,  novalue "),
    (e: Error) => e.message.includes('X: expected key=value pairs, got "novalue"'),
  );
  assert.throws(() => keyValueList("X", "=v"), /X: expected key=value pairs, got "=v"/);
  assert.throws(
    () => keyValueList("X", "ok=1,auth=%E0%A4%A"),
    (e: Error) => e.message.includes("X: the value of auth is not percent-encoded correctly"),
  );
  assert.throws(
    () =>
      resolveOtlpMetrics(config(), {
        OTEL_METRICS_EXPORTER: "otlp",
        OTEL_EXPORTER_OTLP_HEADERS: "a=1",
        OTEL_EXPORTER_OTLP_METRICS_HEADERS: "broken",
      }),
    /OTEL_EXPORTER_OTLP_METRICS_HEADERS: expected key=value pairs, got "broken"/,
  );
});

test("temporality: cumulative in any case; the file's value wins over the variable and is named when refused", () => {
  const env = { OTEL_METRICS_EXPORTER: "otlp" };
  assert.equal(
    on(config(), { ...env, OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: " Cumulative " }).temporality,
    "cumulative",
  );
  assert.equal(
    on(config({ temporality: "cumulative" }), {
      ...env,
      OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: "delta",
    }).temporality,
    "cumulative",
  );
  assert.throws(
    () => resolveOtlpMetrics(config({ temporality: "delta" }), env),
    /otlpMetrics\.temporality: "delta" is not supported/,
  );
});
