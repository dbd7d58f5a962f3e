// Where spans go: the OTLP endpoint table (base or traces endpoint, from the
// configuration or the environment) → the exact URL, checked by posting real
// spans through the production exporter to a loopback HTTP server, in both
// OTLP/HTTP protocols; and what counts as a failed export.
import assert from "node:assert/strict";
import { createServer, type IncomingMessage } from "node:http";
import { after, test } from "node:test";
import { Registry } from "@prometheus-io/client";
import { silentLogger } from "../../../src/log.ts";
import { closeServer, listenOn } from "../../../src/net/listen.ts";
import { registerTracingMetrics } from "../../../src/tracing/metrics.ts";
import {
  type Environment,
  fromBase,
  fromSignal,
  type OtlpTarget,
  otlpProtocol,
  resolveTracingTarget,
  rootSampling,
  signalVariable,
  type TracingEndpointSettings,
  type TracingTarget,
} from "../../../src/tracing/otel-env.ts";
import { createTracing } from "../../../src/tracing/sdk-setup.ts";
import { RecordKeepingTracer } from "../../support/trace-records.ts";
import { cluster, condition, History, object } from "./support.ts";

const none: TracingEndpointSettings = { enabled: undefined, endpoint: undefined, tracesEndpoint: undefined };

interface Row {
  name: string;
  config?: Partial<TracingEndpointSettings>;
  env?: Environment;
  /** The URL posted to and where it came from, or why tracing is off. */
  want: { url: string; source: string; warning?: RegExp } | { off: string };
}

const rows: Row[] = [
  {
    name: "config traces endpoint: as given (config.example.yaml's form)",
    config: { tracesEndpoint: "http://127.0.0.1:4318/v1/traces" },
    want: { url: "http://127.0.0.1:4318/v1/traces", source: "tracing.tracesEndpoint" },
  },
  {
    name: "config base endpoint: /v1/traces appended",
    config: { endpoint: "http://collector:4318" },
    want: { url: "http://collector:4318/v1/traces", source: "tracing.endpoint" },
  },
  {
    name: "config base endpoint with a trailing slash",
    config: { endpoint: "http://collector:4318/" },
    want: { url: "http://collector:4318/v1/traces", source: "tracing.endpoint" },
  },
  {
    name: "config base endpoint with a path prefix",
    config: { endpoint: "https://gateway.example/otlp/" },
    want: { url: "https://gateway.example/otlp/v1/traces", source: "tracing.endpoint" },
  },
  {
    name: "config base endpoint that already names /v1/traces: appended anyway, with a warning",
    config: { endpoint: "http://collector:4318/v1/traces" },
    want: {
      url: "http://collector:4318/v1/traces/v1/traces",
      source: "tracing.endpoint",
      warning: /already ends in \/v1\/traces; give the full URL as the traces endpoint/,
    },
  },
  {
    name: "config base endpoint with a path prefix that already ends in /v1/traces: warned as well",
    config: { endpoint: "https://gateway.example/otlp/v1/traces" },
    want: {
      url: "https://gateway.example/otlp/v1/traces/v1/traces",
      source: "tracing.endpoint",
      warning: /already ends in \/v1\/traces; give the full URL as the traces endpoint/,
    },
  },
  {
    name: "config: the traces endpoint wins over the base endpoint",
    config: { endpoint: "http://base:4318", tracesEndpoint: "http://signal:4318/custom/traces" },
    want: { url: "http://signal:4318/custom/traces", source: "tracing.tracesEndpoint" },
  },
  {
    name: "env base endpoint: /v1/traces appended",
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://jaeger:4318" },
    want: { url: "http://jaeger:4318/v1/traces", source: "OTEL_EXPORTER_OTLP_ENDPOINT" },
  },
  {
    name: "env traces endpoint: as given",
    env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://jaeger:4318/v1/traces" },
    want: { url: "http://jaeger:4318/v1/traces", source: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" },
  },
  {
    name: "env: the traces endpoint wins over the base endpoint",
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://base:4318",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://signal:4318/t",
    },
    want: { url: "http://signal:4318/t", source: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" },
  },
  {
    name: "config wins over env, even a base endpoint over an env traces endpoint",
    config: { endpoint: "http://config:4318" },
    env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://env:4318/v1/traces" },
    want: { url: "http://config:4318/v1/traces", source: "tracing.endpoint" },
  },
  {
    name: "enabled without an endpoint: the specification's default",
    config: { enabled: true },
    want: { url: "http://localhost:4318/v1/traces", source: "tracing.enabled (default endpoint)" },
  },
  { name: "nothing configured: off", want: { off: "no OTLP endpoint configured" } },
  {
    name: "enabled: false wins over an endpoint",
    config: { enabled: false, endpoint: "http://collector:4318" },
    want: { off: "tracing.enabled is false" },
  },
  {
    name: "OTEL_SDK_DISABLED",
    env: { OTEL_SDK_DISABLED: "true", OTEL_EXPORTER_OTLP_ENDPOINT: "http://x:4318" },
    want: { off: "OTEL_SDK_DISABLED=true" },
  },
  {
    name: "OTEL_TRACES_EXPORTER=none",
    config: { endpoint: "http://x:4318" },
    env: { OTEL_TRACES_EXPORTER: "none" },
    want: { off: "OTEL_TRACES_EXPORTER=none" },
  },
];

for (const row of rows) {
  test(`OTLP endpoint: ${row.name}`, () => {
    const target = resolveTracingTarget({ ...none, ...row.config }, row.env ?? {});
    if ("off" in row.want) {
      assert.deepEqual(target, { on: false, reason: row.want.off });
      return;
    }
    assert.ok(target.on, JSON.stringify(target));
    assert.equal(target.otlp.url, row.want.url);
    assert.equal(target.otlp.source, row.want.source);
    if (row.want.warning) assert.match(target.otlp.warning ?? "", row.want.warning);
    else assert.equal(target.otlp.warning, undefined);
  });
}

test("OTLP protocol: http/protobuf by default, the traces variable first, grpc and others refused", () => {
  const protocol = (env: Environment): string => {
    const target = resolveTracingTarget({ ...none, endpoint: "http://x:4318" }, env);
    return target.on ? target.otlp.protocol : target.reason;
  };
  assert.equal(protocol({}), "http/protobuf");
  assert.equal(protocol({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" }), "http/json");
  assert.equal(
    protocol({
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf",
    }),
    "http/protobuf",
  );
  assert.throws(
    () => protocol({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }),
    /OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" is not supported; use http\/protobuf \(the default\) or http\/json/,
  );
  assert.throws(
    () => protocol({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "thrift" }),
    /OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: expected http\/protobuf or http\/json, got "thrift"/,
  );
});

test("OTLP settings errors name the variable or field and the value", () => {
  assert.throws(
    () => resolveTracingTarget(none, { OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" }),
    /OTEL_EXPORTER_OTLP_ENDPOINT: expected an http\(s\) URL of an OTLP\/HTTP receiver, got "collector:4318"/,
  );
  assert.throws(
    () => resolveTracingTarget({ ...none, tracesEndpoint: "::" }, {}),
    /tracing\.tracesEndpoint: expected an http\(s\) URL of an OTLP\/HTTP receiver, got "::"/,
  );
  assert.throws(
    () => resolveTracingTarget({ ...none, endpoint: "http://x:4318" }, { OTEL_TRACES_EXPORTER: "zipkin" }),
    /OTEL_TRACES_EXPORTER: expected otlp or none, got "zipkin"/,
  );
});

/** A loopback OTLP receiver that records each request and answers `status`. */
async function receiver(status: number) {
  const requests: { method: string; url: string; contentType: string }[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    req.resume();
    req.on("end", () => {
      requests.push({
        method: req.method ?? "",
        url: req.url ?? "",
        contentType: req.headers["content-type"] ?? "",
      });
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end("{}");
    });
  });
  const bound = await listenOn(server, { host: "127.0.0.1", port: 0 });
  after(() => closeServer(server));
  return { requests, base: `http://127.0.0.1:${bound.port}` };
}

/** One finished generation (two spans) through the production factory to `otlp`; resolves after the flush. */
async function exportOneRollout(otlp: OtlpTarget, registry = new Registry()) {
  const metrics = registerTracingMetrics(registry, "cr_");
  const tracer = createTracing({
    cluster,
    destination: { otlp },
    sampling: { kind: "always_on" },
    metrics,
    env: {},
    logger: silentLogger,
  });
  const history = new History(new RecordKeepingTracer(tracer));
  history.step({ now: 1, object: object({ conditions: [condition("Ready", "False", 1)] }) });
  history.step({
    now: 3,
    object: object({ observedGeneration: 1, conditions: [condition("Ready", "True", 2, "", "", 1)] }),
  });
  await tracer.shutdown();
  return registry;
}

for (const protocol of ["http/protobuf", "http/json"] as const) {
  const contentType = protocol === "http/json" ? "application/json" : "application/x-protobuf";
  test(`spans are posted to the exact URL (${protocol})`, async () => {
    const { requests, base } = await receiver(200);
    const cases: [TracingEndpointSettings, Environment, string][] = [
      [{ ...none, tracesEndpoint: `${base}/v1/traces` }, {}, "/v1/traces"],
      [{ ...none, endpoint: `${base}/prefix` }, {}, "/prefix/v1/traces"],
      [none, { OTEL_EXPORTER_OTLP_ENDPOINT: base }, "/v1/traces"],
      [none, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${base}/custom/path` }, "/custom/path"],
    ];
    for (const [config, env, path] of cases) {
      const target = resolveTracingTarget(config, { ...env, OTEL_EXPORTER_OTLP_PROTOCOL: protocol });
      assert.ok(target.on);
      requests.length = 0;
      await exportOneRollout(target.otlp);
      assert.deepEqual(requests, [{ method: "POST", url: path, contentType }], JSON.stringify(config ?? env));
    }
  });
}

test("spans the receiver refuses are counted as failed exports", async () => {
  const { requests, base } = await receiver(400);
  const target: TracingTarget = resolveTracingTarget({ ...none, endpoint: base }, {});
  assert.ok(target.on);
  const registry = await exportOneRollout(target.otlp);
  assert.equal(requests.length, 1);
  const text = await registry.metrics();
  assert.match(text, /^cr_exporter_tracing_spans_export_failed_total 2$/m);
  assert.match(text, /^cr_exporter_tracing_spans_emitted_total 2$/m);
});

test("OTLP endpoints: blank values count as unset, values are trimmed, and only http(s) URLs are taken", () => {
  const url = (config: Partial<TracingEndpointSettings>, env: Environment = {}): string => {
    const target = resolveTracingTarget({ ...none, ...config }, env);
    return target.on ? `${target.otlp.url} from ${target.otlp.source}` : target.reason;
  };
  assert.equal(
    url({ tracesEndpoint: "  ", endpoint: "http://base:4318" }),
    "http://base:4318/v1/traces from tracing.endpoint",
  );
  assert.equal(
    url({ endpoint: " " }, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: " http://env:4318/t " }),
    "http://env:4318/t from OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
  );
  assert.equal(
    url({}, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "", OTEL_EXPORTER_OTLP_ENDPOINT: " http://base:4318 " }),
    "http://base:4318/v1/traces from OTEL_EXPORTER_OTLP_ENDPOINT",
  );
  assert.equal(url({}, { OTEL_EXPORTER_OTLP_ENDPOINT: "\t" }), "no OTLP endpoint configured");
  assert.equal(
    url({ tracesEndpoint: "\u00a0http://c:4318/t\u00a0" }),
    "http://c:4318/t from tracing.tracesEndpoint",
    "no-break spaces around it are trimmed too (the URL parser keeps them)",
  );
  assert.equal(
    url({ enabled: true, endpoint: "http://given:4318" }),
    "http://given:4318/v1/traces from tracing.endpoint",
    "enabled with an endpoint: that endpoint, not the default",
  );
  assert.equal(
    url({ enabled: true, endpoint: "" }),
    "http://localhost:4318/v1/traces from tracing.enabled (default endpoint)",
  );
  for (const bad of ["ftp://collector:4318", "file:///tmp/spans"]) {
    assert.throws(
      () => url({ endpoint: bad }),
      new RegExp(
        `\n  tracing\\.endpoint: expected an http\\(s\\) URL of an OTLP/HTTP receiver, got "${bad}"`,
      ),
    );
  }
  assert.equal(
    url({ tracesEndpoint: "HTTPS://Collector:4318/x" }),
    "https://collector:4318/x from tracing.tracesEndpoint",
  );
});

test("OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER: read case- and space-tolerantly; a list with none is off", () => {
  const on = (env: Environment): string => {
    const target = resolveTracingTarget({ ...none, endpoint: "http://x:4318" }, env);
    return target.on ? "on" : target.reason;
  };
  assert.equal(on({ OTEL_SDK_DISABLED: " TRUE " }), "OTEL_SDK_DISABLED=true");
  assert.equal(on({ OTEL_SDK_DISABLED: "false" }), "on");
  assert.equal(on({ OTEL_SDK_DISABLED: "" }), "on");
  assert.equal(on({ OTEL_TRACES_EXPORTER: "otlp" }), "on");
  assert.equal(on({ OTEL_TRACES_EXPORTER: " otlp , " }), "on", "empty entries are skipped");
  assert.equal(on({ OTEL_TRACES_EXPORTER: "" }), "on");
  assert.equal(on({ OTEL_TRACES_EXPORTER: "otlp, none" }), "OTEL_TRACES_EXPORTER=none");
  assert.equal(on({ OTEL_TRACES_EXPORTER: " none " }), "OTEL_TRACES_EXPORTER=none");
  assert.throws(
    () => on({ OTEL_TRACES_EXPORTER: "otlp,zipkin, console" }),
    /OTEL_TRACES_EXPORTER: expected otlp or none, got "otlp,zipkin, console" \(zipkin, console is not supported\)$/,
  );
});

test("OTLP protocol: values trimmed, a blank per-signal variable falls back to the general one", () => {
  assert.equal(otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: " http/json " }), "http/json");
  assert.equal(
    otlpProtocol({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "  ", OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" }),
    "http/json",
  );
  assert.equal(otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: " " }), "http/protobuf");
  assert.equal(
    otlpProtocol(
      { OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "http/json", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "grpc" },
      "metrics",
    ),
    "http/json",
    "each signal reads its own variable",
  );
  assert.deepEqual(signalVariable({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "m" }, "metrics", "ENDPOINT"), [
    "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
    "m",
  ]);
  assert.deepEqual(signalVariable({ OTEL_EXPORTER_OTLP_ENDPOINT: "g" }, "traces", "ENDPOINT"), [
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "g",
  ]);
  assert.throws(() => otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: " grpc " }), /"grpc" is not supported/);
});

test("a base endpoint of another signal gets that signal's path, and the warning names it", () => {
  assert.deepEqual(fromBase("s", "http://c:4318/", "metrics"), {
    url: "http://c:4318/v1/metrics",
    source: "s",
  });
  assert.deepEqual(fromBase("s", "http://c:4318/v1/metrics", "metrics"), {
    url: "http://c:4318/v1/metrics/v1/metrics",
    source: "s",
    warning:
      "s is a base endpoint (/v1/metrics is appended) but already ends in /v1/metrics; give the full URL as the metrics endpoint instead",
  });
  assert.deepEqual(fromBase("s", "http://c:4318//"), { url: "http://c:4318/v1/traces", source: "s" });
  assert.equal(fromBase("s", "http://c:4318/v1/traces/x").warning, undefined, "only a path ending in it");
  assert.deepEqual(fromSignal("s", " http://c:4318/any "), { url: "http://c:4318/any", source: "s" });
});

test("root sampling: names read case- and space-tolerantly, a blank ratio is 1, a ratio outside [0, 1] refused", () => {
  assert.deepEqual(rootSampling({ OTEL_TRACES_SAMPLER: " Always_On " }), { kind: "always_on" });
  assert.deepEqual(rootSampling({ OTEL_TRACES_SAMPLER: "always_off" }), { kind: "always_off" });
  assert.deepEqual(rootSampling({ OTEL_TRACES_SAMPLER: "parentbased_traceidratio" }), {
    kind: "ratio",
    ratio: 1,
  });
  assert.deepEqual(rootSampling({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: " " }), {
    kind: "ratio",
    ratio: 1,
  });
  for (const edge of ["0", "1"]) {
    assert.deepEqual(rootSampling({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: edge }), {
      kind: "ratio",
      ratio: Number(edge),
    });
  }
  for (const bad of ["-0.1", "1.01", "half", "Infinity"]) {
    assert.throws(
      () => rootSampling({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: bad }),
      new RegExp(`OTEL_TRACES_SAMPLER_ARG: expected a ratio between 0 and 1, got "${bad}"`),
    );
  }
  assert.throws(() => rootSampling({ OTEL_TRACES_SAMPLER: "" }), /got ""/);
});
