// Deterministic trace and span ids. The same object, generation and role
// always give the same ids, so a restart, a relist or a second replica
// re-emits identical spans instead of new ones, and backends de-duplicate them.
// The salt keeps these ids apart from any other tool hashing the same uids.
import { createHash } from "node:crypto";

const salt = "cr-status-exporter/v1";

function hexDigest(input: string, length: number): string {
  for (let attempt = 0; ; attempt++) {
    const key = attempt === 0 ? input : `${input}|retry=${attempt}`;
    const hex = createHash("sha256").update(key).digest("hex").slice(0, length);
    // An all-zero id is invalid in OpenTelemetry; a hash essentially never gives one.
    if (!/^0+$/.test(hex)) return hex;
  }
}

/** The key of one trace: everything its ids derive from. */
export function generationTraceKey(cluster: string, uid: string, generation: number): string {
  return `${salt}|${cluster}|${uid}|gen=${generation}`;
}

/** A trace for an interval in which the ready condition was not in its desired state, keyed by when it started. */
export function degradedTraceKey(cluster: string, uid: string, condition: string, since: string): string {
  return `${salt}|${cluster}|${uid}|degraded=${condition}|since=${since}`;
}

/** A trace for one operation (tracing.operation), keyed by its server-written start (epoch seconds). */
export function operationTraceKey(cluster: string, uid: string, startedAtSeconds: number): string {
  return `${salt}|${cluster}|${uid}|operation=${startedAtSeconds}`;
}

export function traceIdOf(traceKey: string): string {
  return hexDigest(traceKey, 32);
}

/** `role` names the span within its trace: `root`, `cond=…`, `phase=…`. */
export function spanIdOf(traceKey: string, role: string): string {
  return hexDigest(`${traceKey}|${role}`, 16);
}
