// Joins: which span a root span hangs under or links to, beyond its own
// object — its controller owner's root, its source's root, or the request
// that started it (a W3C trace context in an annotation). Pure: plain values
// in, plain values out. The caller (planning-tracer.ts, from the directory of
// traced objects, directory.ts) hands the planner each parent as a JoinTarget;
// the rule below picks the parent's generation that was in force when the
// child's root began, from server timestamps only, so every process (a
// restart, another replica, another shard) picks the same one.

/** A parent as the directory knows it: its current generation, when that began and when it settled. */
export interface JoinTarget {
  uid: string;
  kind: string;
  generation: number;
  /** Epoch ms the current generation began (server time); undefined: unknown. */
  startMs: number | undefined;
  /** Epoch ms the current generation was reconciled (its ready condition's lastTransitionTime); undefined: not (known to be). */
  settledAtMs: number | undefined;
  /** Trace id of the current generation's root (its own hash, or its parent's trace when it joined one). */
  traceId: string;
  /** Trace id of the previous generation's root; undefined for generation 1 (and for an operation). */
  previousTraceId: string | undefined;
  /**
   * The current root's span id when it is an operation's (tracing.operation):
   * startMs and settledAtMs are then the operation's startedAt and
   * finishedAt. Undefined: a generation root, its id derived from the generation.
   */
  spanId?: string;
}

/** The parent's root a child's root joins: its ids, and whether it was still open when the child began. */
export interface ResolvedJoin {
  generation: number;
  traceId: string;
  spanId: string;
  /** False: the parent's generation had already been reconciled (or timed out) when the child's root began. */
  open: boolean;
}

/**
 * The parent's generation in force at `childStartMs`: the current one when it
 * began at or before then, else the one before it (a parent that moved on
 * since, as after a restart). An operation (no previous root known) only when
 * it began at or before then. Open unless it had settled, or passed its
 * timeout, strictly before the child began.
 */
export function resolveJoin(
  target: JoinTarget,
  childStartMs: number,
  timeoutMs: number,
  rootSpanId: (uid: string, generation: number) => string,
): ResolvedJoin | undefined {
  if (target.startMs !== undefined && target.startMs > childStartMs) {
    const generation = target.generation - 1;
    if (generation < 1 || target.previousTraceId === undefined) return undefined;
    return {
      generation,
      traceId: target.previousTraceId,
      spanId: rootSpanId(target.uid, generation),
      open: true,
    };
  }
  const settled = target.settledAtMs !== undefined && target.settledAtMs < childStartMs;
  const expired = target.startMs !== undefined && childStartMs >= target.startMs + timeoutMs;
  return {
    generation: target.generation,
    traceId: target.traceId,
    spanId: target.spanId ?? rootSpanId(target.uid, target.generation),
    open: !settled && !expired,
  };
}

/** A W3C trace context: the span the request was in. */
export interface RequestContext {
  traceId: string;
  spanId: string;
  /** W3C tracestate, when given (carried to the spans under it). */
  traceState: string | undefined;
}

const traceparentPattern = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const traceStatePattern = /^[\x20-\x7e]{0,512}$/;

/**
 * Parses a trace-context annotation: either a bare `traceparent`
 * (`00-<32 hex>-<16 hex>-<2 hex>`), or a JSON object with `traceparent` and
 * optional `tracestate` (the form kubernetes-sigs/agent-sandbox writes to
 * `opentelemetry.io/trace-context`). Undefined when malformed: a wrong shape,
 * version ff, an all-zero id, upper-case hex, or a future version's extra
 * fields on version 00 (W3C Trace Context §3.2).
 */
export function parseTraceContext(value: string): RequestContext | undefined {
  const text = value.trim();
  let traceparent: unknown = text;
  let tracestate: unknown;
  if (text.startsWith("{")) {
    try {
      const parsed: unknown = JSON.parse(text);
      // Stryker disable next-line LogicalOperator: only text starting with "{" is parsed, and JSON.parse makes it an object (never null or an array) or throws, so every operand is false
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
      traceparent = (parsed as Record<string, unknown>).traceparent;
      tracestate = (parsed as Record<string, unknown>).tracestate;
    } catch {
      return undefined;
    }
  }
  if (typeof traceparent !== "string") return undefined;
  const match = traceparentPattern.exec(traceparent.trim());
  if (!match) return undefined;
  const [, version, traceId, spanId, , rest] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string?,
  ];
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  if (tracestate !== undefined && (typeof tracestate !== "string" || !traceStatePattern.test(tracestate))) {
    return undefined;
  }
  return { traceId, spanId, traceState: tracestate === "" ? undefined : (tracestate as string | undefined) };
}
