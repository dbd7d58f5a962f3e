// What the collectors do with trace records, for tests that drive a tracer
// directly: one record per object uid, handed in with each change and kept
// from what comes back (in the exporter the record lives in the object's
// store entry, src/collectors/resource-collector.ts).
import type { TraceRecord } from "../../src/core/entry.ts";
import type { ObjectObservation, StateTracer, TracedGeneration } from "../../src/tracing/state-tracer.ts";

export class RecordKeepingTracer {
  readonly tracer: StateTracer;
  readonly records = new Map<string, TraceRecord>();
  readonly #nowMs: () => number;

  constructor(tracer: StateTracer, nowMs: () => number = Date.now) {
    this.tracer = tracer;
    this.#nowMs = nowMs;
  }

  observe(o: ObjectObservation): TracedGeneration | undefined {
    const uid = o.current?.uid ?? o.previous?.uid;
    if (uid === undefined) return undefined;
    const step = this.tracer.observe(o, this.records.get(uid));
    if (step.record) this.records.set(uid, step.record);
    else this.records.delete(uid);
    return step.traced;
  }

  tick(nowMs: number): void {
    for (const [uid, record] of this.records) this.records.set(uid, this.tracer.tick(record, nowMs));
  }

  get openEpisodes(): number {
    let open = 0;
    for (const record of this.records.values()) if (record.open) open++;
    return open;
  }

  traceIdFor(uid: string, generation: number): string | undefined {
    return this.tracer.traceIdFor(uid, this.records.get(uid), generation);
  }

  /** As the exporter stops: open records interrupted when the tracer says so, then the SDK shut down. */
  async shutdown(): Promise<void> {
    if (this.tracer.endsOpenSpansOnShutdown)
      for (const record of this.records.values()) this.tracer.interrupt(record, this.#nowMs());
    await this.tracer.shutdown();
  }
}
