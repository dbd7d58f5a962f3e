// Operation episodes (tracing.operation): a kind without generation roots
// whose controller writes when each operation started and finished (Argo
// CD's status.operationState) gets one `<Kind> operation` root per
// operation, keyed by its startedAt. Both ends are server times, so every
// process (a shard, a restart, a new leader) computes the same ids and the
// same times, and other objects can join the root (tracing/directory.ts).
import type { ObjectState, OperationTimes } from "../../core/state.ts";
import * as attr from "../attributes.ts";
import { operationTraceKey, spanIdOf, traceIdOf } from "../ids.ts";
import type { ObjectObservation } from "../state-tracer.ts";
import { advance, type EpisodeEnd } from "./episode-end.ts";
import { updateChildren } from "./intervals.ts";
import { joinDegraded } from "./joins.ts";
import type { Episode } from "./model.ts";
import { identityAttributes } from "./span-fields.ts";
import { observed, rfc3339, type Stamp } from "./stamps.ts";
import type { Step } from "./step.ts";

/** Phases that end an operation as failed; any other phase at finishedAt is a success. */
const failedPhases: ReadonlySet<string> = new Set(["Failed", "Error"]);

const operationStamp = (seconds: number): Stamp => ({ ms: seconds * 1000, source: "operation" });

/** How an operation that reports its finish ends: at finishedAt, as its phase says. */
function operationEnd(operation: OperationTimes & { finishedAt: number }): EpisodeEnd {
  const phase = operation.phase;
  const failed = phase !== undefined && failedPhases.has(phase);
  return {
    end: operationStamp(operation.finishedAt),
    outcome: failed ? "failed" : "succeeded",
    errorType: failed ? phase : undefined,
  };
}

/**
 * Plans an object that reports `operation`: ends whatever other root is open
 * (a degraded episode from before its first operation, or an operation whose
 * finish was missed) as superseded at this operation's start, then opens,
 * advances or ends this operation's root.
 */
export function planOperation(
  step: Step,
  o: ObjectObservation,
  current: ObjectState,
  operation: OperationTimes,
): void {
  const { state, nowMs } = step;
  const startMs = operation.startedAt * 1000;
  const other = state.open;
  if (other && !(other.kind === "operation" && other.operationStartedAt === operation.startedAt)) {
    const end = startMs >= other.startMs ? operationStamp(operation.startedAt) : observed(nowMs);
    advance(step, other, current, o.previous, { end, outcome: "superseded" });
  }
  if (!state.open) {
    if (operation.startedAt === state.closedOperationAt) return;
    // Over (or past its timeout) before this process first saw it: its root is another's to have emitted.
    const over = operation.finishedAt !== undefined || nowMs >= startMs + step.settings.timeoutMs;
    if (o.previous === undefined && over) {
      state.closedOperationAt = operation.startedAt;
      return;
    }
    state.open = openOperation(step, o, current, operation);
  }
  const open = state.open as Episode;
  if (operation.finishedAt === undefined) {
    advance(step, open, current, o.previous, undefined);
    return;
  }
  const ending = operationEnd({ ...operation, finishedAt: operation.finishedAt });
  const attributes = { ...open.attributes };
  if (operation.phase !== undefined) attributes[attr.OPERATION_PHASE] = operation.phase;
  state.open = { ...open, attributes };
  advance(step, state.open, current, o.previous, ending);
}

/** The root of the operation that started at `operation.startedAt`, with its children as they are now. */
function openOperation(
  step: Step,
  o: ObjectObservation,
  current: ObjectState,
  operation: OperationTimes,
): Episode {
  const key = operationTraceKey(step.settings.cluster, current.uid, operation.startedAt);
  const startMs = operation.startedAt * 1000;
  const episode: Episode = {
    kind: "operation",
    generation: undefined,
    traceKey: key,
    traceId: traceIdOf(key),
    rootSpanId: spanIdOf(key, "root"),
    rootName: `${o.resource.kind} operation`,
    startMs,
    attributes: {
      ...identityAttributes(o.resource, current),
      [attr.START_SOURCE]: "operation",
      [attr.OPERATION_STARTED_AT]: rfc3339(operation.startedAt),
    },
    // Like a degraded root, an operation root only links to its owner's and source's roots.
    links: joinDegraded(step, o.joins, startMs),
    conditions: {},
    phase: undefined,
    operationStartedAt: operation.startedAt,
  };
  updateChildren(step, episode, current, o.previous, false);
  return episode;
}

/**
 * The object no longer reports an operation (the field removed, or no longer
 * a time): an open operation root ends now as superseded, and the object is
 * traced by degraded roots again.
 */
export function leaveOperations(step: Step, o: ObjectObservation, current: ObjectState): void {
  const open = step.state.open;
  if (open?.kind !== "operation") return;
  advance(step, open, current, o.previous, { end: observed(step.nowMs), outcome: "superseded" });
}
