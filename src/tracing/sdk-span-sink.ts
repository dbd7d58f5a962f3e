// Turns span plans into real SDK spans: the planned ids through
// PlannedIdGenerator, the parent as a remote span context (the root span
// object may not exist yet, or any more), start and end as HrTime so epoch
// milliseconds are never mistaken for performance.now() offsets.
import {
  type Attributes,
  createTraceState,
  type HrTime,
  type Link,
  ROOT_CONTEXT,
  type Sampler,
  SamplingDecision,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import type { PlannedIdGenerator } from "./planned-id-generator.ts";
import type { SpanPlan } from "./planner/model.ts";
import type { SpanSink } from "./planning-tracer.ts";

export function hrTime(epochMs: number): HrTime {
  const seconds = Math.floor(epochMs / 1000);
  return [seconds, Math.round((epochMs - seconds * 1000) * 1_000_000)];
}

export class SdkSpanSink implements SpanSink {
  readonly #tracer: Tracer;
  readonly #ids: PlannedIdGenerator;
  readonly #rootSampler: Sampler;
  readonly #shutdown: () => Promise<void>;

  /**
   * `rootSampler` must be the sampler the provider applies to root spans
   * (the provider itself samples children by their parent's flag), so that a
   * child is sampled exactly when its root is, even though the root span is
   * started after it.
   */
  constructor(tracer: Tracer, ids: PlannedIdGenerator, rootSampler: Sampler, shutdown: () => Promise<void>) {
    this.#tracer = tracer;
    this.#ids = ids;
    this.#rootSampler = rootSampler;
    this.#shutdown = shutdown;
  }

  isSampled(traceId: string): boolean {
    const result = this.#rootSampler.shouldSample(ROOT_CONTEXT, traceId, "", SpanKind.INTERNAL, {}, []);
    return result.decision === SamplingDecision.RECORD_AND_SAMPLED;
  }

  emit(plan: SpanPlan): void {
    const parent =
      plan.parentSpanId === undefined
        ? ROOT_CONTEXT
        : trace.setSpanContext(ROOT_CONTEXT, {
            traceId: plan.traceId,
            spanId: plan.parentSpanId,
            traceFlags: this.isSampled(plan.traceId) ? TraceFlags.SAMPLED : TraceFlags.NONE,
            isRemote: true,
            ...(plan.traceState !== undefined && { traceState: createTraceState(plan.traceState) }),
          });
    const links: Link[] = plan.links.map((link) => ({
      context: { traceId: link.traceId, spanId: link.spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true },
      attributes: link.attributes as Attributes,
    }));
    const span = this.#ids.with(plan.traceId, plan.spanId, () =>
      this.#tracer.startSpan(
        plan.name,
        {
          kind: SpanKind.INTERNAL,
          startTime: hrTime(plan.startMs),
          attributes: plan.attributes as Attributes,
          links,
          root: plan.parentSpanId === undefined,
        },
        parent,
      ),
    );
    for (const event of plan.events) {
      span.addEvent(event.name, event.attributes as Attributes, hrTime(event.timeMs));
    }
    if (plan.status.code === "error") {
      span.setStatus({ code: SpanStatusCode.ERROR, message: plan.status.message ?? "" });
    } else if (plan.status.code === "ok") {
      span.setStatus({ code: SpanStatusCode.OK });
    }
    span.end(hrTime(plan.endMs));
  }

  shutdown(): Promise<void> {
    return this.#shutdown();
  }
}
