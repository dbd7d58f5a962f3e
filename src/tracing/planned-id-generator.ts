// An IdGenerator that hands out chosen ids. The SDK asks for ids synchronously
// inside tracer.startSpan(), so setting the slot, starting the span and
// clearing the slot with no await in between gives that one span exactly the
// planned ids. Any other span (none are expected) gets random ids.
import type { IdGenerator } from "@opentelemetry/sdk-trace";
import { RandomIdGenerator } from "@opentelemetry/sdk-trace";

export class PlannedIdGenerator implements IdGenerator {
  readonly #random = new RandomIdGenerator();
  #traceId: string | undefined;
  #spanId: string | undefined;

  /** Runs `start` with the next span's ids fixed. */
  with<T>(traceId: string, spanId: string, start: () => T): T {
    this.#traceId = traceId;
    this.#spanId = spanId;
    try {
      return start();
    } finally {
      this.#traceId = undefined;
      this.#spanId = undefined;
    }
  }

  generateTraceId(): string {
    const id = this.#traceId;
    this.#traceId = undefined;
    return id ?? this.#random.generateTraceId();
  }

  generateSpanId(): string {
    const id = this.#spanId;
    this.#spanId = undefined;
    return id ?? this.#random.generateSpanId();
  }
}
