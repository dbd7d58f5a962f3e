// Object drafts for the real CRDs: spec and status written by us in each
// project's documented status shape, one draft per life stage. The e2e test
// creates them on the testbed against the projects' own schemas (strict field
// validation: a field the schema does not know is an error, not pruned).
import { type Condition, condition as stamped } from "../../cluster/fixtures.ts";

export const scenarios = ["healthy", "progressing", "failed", "suspended", "terminating"] as const;
export type Scenario = (typeof scenarios)[number];

export interface ObjectDraft {
  scenario: Scenario;
  /** What the object stands for, in the project's terms. */
  about: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** Kept while terminating: the test deletes the object and it stays, with a deletionTimestamp. */
  finalizers?: string[];
  spec: Record<string, unknown>;
  /** Absent for kinds whose schema has no status. */
  status?: Record<string, unknown>;
}

/** The clock the drafts are stamped with. */
export interface DraftClock {
  now: Date;
}

export type DraftBuilder = (clock: DraftClock) => ObjectDraft[];

/** An RFC 3339 time `minutes` before now, in whole seconds as the API stores it. */
export function ago(clock: DraftClock, minutes: number): string {
  return `${new Date(clock.now.getTime() - minutes * 60_000).toISOString().slice(0, 19)}Z`;
}

export type ConditionStatus = Condition["status"];
export type ConditionDraft = Condition;

/** A metav1.Condition-shaped entry since `since` (RFC 3339); `observedGeneration` only where the project sets it. */
export function condition(
  type: string,
  status: ConditionStatus,
  reason: string,
  message: string,
  since: string,
  observedGeneration?: number,
): ConditionDraft {
  return stamped(type, status, reason, message, observedGeneration, new Date(since));
}

/** Transition times the drafts use: a long-settled state, a recent change, a failure older than any failedAfter. */
export function times(clock: DraftClock): { settled: string; recent: string; failedLongAgo: string } {
  return { settled: ago(clock, 120), recent: ago(clock, 1), failedLongAgo: ago(clock, 30) };
}

/** A finalizer for kinds whose controller adds none of its own to hold them while terminating. */
export const testFinalizer = "test.cr-status-exporter.io/hold";
