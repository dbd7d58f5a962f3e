// The status-update request families (docs/metrics.md, "Status-update
// requests"), shared by the API proxy and the audit receiver.
import { Counter, Histogram, type Registry } from "@prometheus-io/client";
import type { FailureReason } from "./classify.ts";

export type StatusWriteSource = "proxy" | "audit";

/** One observed write to a /status subresource. */
export interface StatusWriteObservation {
  source: StatusWriteSource;
  group: string;
  kind: string;
  /** "" for cluster-scoped objects. */
  namespace: string;
  verb: string;
  /** HTTP response code; 0 when no response came back. */
  code: number;
  /** Set when the write failed. */
  failure: FailureReason | undefined;
  /** Undefined when the duration is not known. */
  durationSeconds: number | undefined;
  /** The writer's user name, when the source knows it (audit). */
  user?: string | undefined;
}

export interface StatusWriteMetrics {
  record(observation: StatusWriteObservation): void;
}

export interface StatusWriteMetricsOptions {
  /**
   * Distinct user names kept as label values of the by-user family; writes by
   * later users are counted as user="other". Writers of status are
   * controllers, so a cluster normally has a few dozen.
   */
  maxUsers?: number;
}

// Status writes take milliseconds when healthy, seconds under apiserver load
// or a slow admission webhook (whose own timeout defaults to 10 s).
const durationBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export const otherUser = "other";

export function createStatusWriteMetrics(
  registry: Registry,
  prefix = "cr_",
  options: StatusWriteMetricsOptions = {},
): StatusWriteMetrics {
  const registers = [registry];
  const requests = new Counter({
    name: `${prefix}status_update_requests_total`,
    help: "Writes to a /status subresource, by HTTP response code.",
    labelNames: ["group", "kind", "namespace", "verb", "code", "source"] as const,
    registers,
  });
  const failures = new Counter({
    name: `${prefix}status_update_failures_total`,
    help: "Failed status writes by reason.",
    labelNames: ["group", "kind", "namespace", "reason", "source"] as const,
    registers,
  });
  const duration = new Histogram({
    name: `${prefix}status_update_request_duration_seconds`,
    help: "Latency of status writes.",
    labelNames: ["group", "kind", "verb", "source"] as const,
    buckets: durationBuckets,
    registers,
  });
  const byUser = new Counter({
    name: `${prefix}status_update_requests_by_user_total`,
    help: "Writes to a /status subresource seen by the audit receiver, by writer identity and HTTP response code.",
    labelNames: ["user", "group", "kind", "code"] as const,
    registers,
  });
  const maxUsers = options.maxUsers ?? 100;
  const users = new Set<string>();

  const userLabel = (user: string): string => {
    if (users.has(user)) return user;
    if (users.size >= maxUsers) return otherUser;
    users.add(user);
    return user;
  };

  return {
    record(o) {
      const code = String(o.code);
      requests.inc({
        group: o.group,
        kind: o.kind,
        namespace: o.namespace,
        verb: o.verb,
        code,
        source: o.source,
      });
      if (o.failure) {
        failures.inc({
          group: o.group,
          kind: o.kind,
          namespace: o.namespace,
          reason: o.failure,
          source: o.source,
        });
      }
      if (o.durationSeconds !== undefined && o.durationSeconds >= 0) {
        duration.observe({ group: o.group, kind: o.kind, verb: o.verb, source: o.source }, o.durationSeconds);
      }
      if (o.user !== undefined) {
        byUser.inc({ user: userLabel(o.user), group: o.group, kind: o.kind, code });
      }
    },
  };
}
