// The sampler for root spans, from OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG.
// Every span this exporter makes is either a root or the child of one of its
// roots, so `parentbased_X` and `X` decide the same for roots; children then
// follow their root's decision (see SdkSpanSink). Because trace ids are hashes,
// `traceidratio` keeps or drops a whole generation consistently everywhere.
import type { Sampler } from "@opentelemetry/api";
import { AlwaysOffSampler, AlwaysOnSampler, TraceIdRatioBasedSampler } from "@opentelemetry/sdk-trace";

export function rootSamplerFromEnv(env: Record<string, string | undefined>): Sampler {
  const name = (env.OTEL_TRACES_SAMPLER ?? "parentbased_always_on").trim().toLowerCase();
  switch (name) {
    case "always_on":
    case "parentbased_always_on":
      return new AlwaysOnSampler();
    case "always_off":
    case "parentbased_always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
    case "parentbased_traceidratio":
      return new TraceIdRatioBasedSampler(samplerRatio(env.OTEL_TRACES_SAMPLER_ARG));
    default:
      throw new Error(
        `OTEL_TRACES_SAMPLER: unsupported value "${env.OTEL_TRACES_SAMPLER}" (use always_on, always_off, traceidratio or their parentbased_ forms)`,
      );
  }
}

function samplerRatio(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === "") return 1;
  const ratio = Number(raw);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) {
    throw new Error(`OTEL_TRACES_SAMPLER_ARG: expected a ratio between 0 and 1 (got "${raw}")`);
  }
  return ratio;
}
