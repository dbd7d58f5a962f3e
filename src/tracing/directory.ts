// The directory of traced objects that other objects' root spans may join:
// per object a few numbers and names (its generation, when that began and
// settled, how its own root joins), never the object. Every collector's
// changes pass through the tracer, which keeps it current, so it is shared by
// all of them and read when a child's root opens (tracing/joins.ts decides
// which of the parent's generations it joins). With tracing.joinAcrossShards,
// a shard also enters the objects of other shards here (index only: no
// trace state, no spans), so a child and its owner on different shards join
// as they do in one process.
import { findCondition, isSettled, type ReadinessRules } from "../core/judge/readiness.ts";
import type { ObjectState, OperationTimes, ResourceIdentity } from "../core/state.ts";
import { generationTraceKey, operationTraceKey, spanIdOf, traceIdOf } from "./ids.ts";
import { type JoinTarget, parseTraceContext, resolveJoin } from "./joins.ts";
import type { Joins } from "./planner/model.ts";
import { bumpTime, conditionStart } from "./planner/stamps.ts";

/** How a resource's roots join (its `tracing` options). */
export interface JoinRules {
  /** tracing.parent. */
  parent: "owner" | "source" | undefined;
  /** The kind tracing.source names (the reference itself is read into ObjectState.refs). */
  source: { group: string; kind: string } | undefined;
}

export const noJoinRules: JoinRules = { parent: undefined, source: undefined };

interface Entry {
  uid: string;
  group: string;
  kind: string;
  key: string;
  generation: number;
  startMs: number | undefined;
  settledAtMs: number | undefined;
  /** The trace id this process gave the current generation's root, when it traced it. */
  tracedTraceId: string | undefined;
  /** The startedAt (epoch seconds) of its current operation, for a kind traced by operations; startMs/settledAtMs are then the operation's. */
  operationAt: number | undefined;
  rules: JoinRules;
  ownerUid: string | undefined;
  ownerKind: string | undefined;
  sourceKey: string | undefined;
  requestTraceId: string | undefined;
}

const nameKey = (group: string, kind: string, namespace: string, name: string) =>
  `${group}/${kind}/${namespace}/${name}`;

const groupOf = (apiVersion: string) =>
  apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";

/** Links deeper than this are not followed (an owner cycle cannot be made, but a source chain could). */
const maxDepth = 8;

/** What a join needs of an object's current root: its generation, and when it began and settled (server times). */
interface RootSpan {
  generation: number;
  startMs: number | undefined;
  settledAtMs: number | undefined;
}

/** The current generation's root; undefined for a kind without generation roots. */
function generationSpan(
  statusSubresource: boolean,
  rules: ReadinessRules,
  current: ObjectState,
  nowMs: number,
): RootSpan | undefined {
  const generation = current.generation;
  if (!statusSubresource || generation === undefined || generation < 1) return undefined;
  const bump = bumpTime(current, generation, nowMs);
  const startMs = bump.source === "observed" ? undefined : bump.ms;
  let settledAtMs: number | undefined;
  if (isSettled(current, rules, generation) && rules.readyCondition !== undefined) {
    const ready = findCondition(current, rules.readyCondition);
    const at = ready ? conditionStart(ready, nowMs) : undefined;
    if (at && at.source === "condition" && (startMs === undefined || at.ms >= startMs)) settledAtMs = at.ms;
  }
  return { generation, startMs, settledAtMs };
}

/** The current operation's root: from its startedAt to its finishedAt. */
function operationSpan(operation: OperationTimes): RootSpan {
  const finishedAt = operation.finishedAt;
  return {
    generation: 0,
    startMs: operation.startedAt * 1000,
    settledAtMs: finishedAt === undefined ? undefined : finishedAt * 1000,
  };
}

export class TraceDirectory {
  readonly #cluster: string;
  readonly #timeoutMs: number;
  readonly #byUid = new Map<string, Entry>();
  readonly #byName = new Map<string, string>();

  constructor(cluster: string, timeoutMs: number) {
    this.#cluster = cluster;
    this.#timeoutMs = timeoutMs;
  }

  get size(): number {
    return this.#byUid.size;
  }

  /**
   * Enters (or refreshes) an object from its current state; `tracedTraceId`:
   * the trace its current generation's root joined in this process, if any.
   * Kinds without a status subresource have no generation roots: entered
   * only while they report an operation (tracing.operation), as that.
   */
  note(
    resource: ResourceIdentity,
    statusSubresource: boolean,
    rules: ReadinessRules,
    joinRules: JoinRules,
    current: ObjectState,
    tracedTraceId: string | undefined,
    nowMs: number,
  ): void {
    const operation = statusSubresource ? undefined : current.refs?.operation;
    const span = operation
      ? operationSpan(operation)
      : generationSpan(statusSubresource, rules, current, nowMs);
    if (!span) {
      this.forget(current.uid);
      return;
    }
    const { generation, startMs, settledAtMs } = span;
    const refs = current.refs;
    const source =
      refs?.source &&
      joinRules.source &&
      (refs.source.kind === undefined || refs.source.kind === joinRules.source.kind)
        ? nameKey(joinRules.source.group, joinRules.source.kind, refs.source.namespace, refs.source.name)
        : undefined;
    const key = nameKey(resource.group, resource.kind, current.namespace, current.name);
    const previous = this.#byUid.get(current.uid);
    if (previous && previous.key !== key) this.#byName.delete(previous.key);
    this.#byUid.set(current.uid, {
      uid: current.uid,
      group: resource.group,
      kind: resource.kind,
      key,
      generation,
      startMs,
      settledAtMs,
      tracedTraceId: operation ? undefined : tracedTraceId,
      operationAt: operation?.startedAt,
      rules: joinRules,
      ownerUid: refs?.owner?.uid,
      ownerKind: refs?.owner ? `${groupOf(refs.owner.apiVersion)}/${refs.owner.kind}` : undefined,
      sourceKey: source,
      requestTraceId:
        refs?.traceContext === undefined ? undefined : parseTraceContext(refs.traceContext)?.traceId,
    });
    this.#byName.set(key, current.uid);
  }

  forget(uid: string): void {
    const entry = this.#byUid.get(uid);
    if (!entry) return;
    this.#byUid.delete(uid);
    if (this.#byName.get(entry.key) === uid) this.#byName.delete(entry.key);
  }

  /** What the roots of `current` may join: its owner and source as join targets, and its trace context. */
  joinsOf(current: ObjectState, joinRules: JoinRules): Joins | undefined {
    const refs = current.refs;
    if (!refs) return undefined;
    const owner = refs.owner ? this.#byUid.get(refs.owner.uid) : undefined;
    const ownerMatches =
      owner &&
      refs.owner &&
      `${owner.group}/${owner.kind}` === `${groupOf(refs.owner.apiVersion)}/${refs.owner.kind}`;
    const sourceRef = refs.source;
    const source =
      sourceRef &&
      joinRules.source &&
      (sourceRef.kind === undefined || sourceRef.kind === joinRules.source.kind)
        ? this.#byUid.get(
            this.#byName.get(
              nameKey(joinRules.source.group, joinRules.source.kind, sourceRef.namespace, sourceRef.name),
            ) ?? "",
          )
        : undefined;
    return {
      parent: joinRules.parent,
      owner: owner && ownerMatches && owner.uid !== current.uid ? this.#target(owner, 0) : undefined,
      source: source && source.uid !== current.uid ? this.#target(source, 0) : undefined,
      traceContext: refs.traceContext,
    };
  }

  /** An entry as a join target: its trace ids follow its own joins (recursively, by the same rule). */
  #target(entry: Entry, depth: number): JoinTarget {
    const startMs = entry.startMs;
    if (entry.operationAt !== undefined) {
      // An operation root joins no parent: its trace is its own hash.
      const key = operationTraceKey(this.#cluster, entry.uid, entry.operationAt);
      return {
        uid: entry.uid,
        kind: entry.kind,
        generation: entry.generation,
        startMs,
        settledAtMs: entry.settledAtMs,
        traceId: traceIdOf(key),
        previousTraceId: undefined,
        spanId: spanIdOf(key, "root"),
      };
    }
    return {
      uid: entry.uid,
      kind: entry.kind,
      generation: entry.generation,
      startMs,
      settledAtMs: entry.settledAtMs,
      traceId: entry.tracedTraceId ?? this.#traceIdAt(entry, entry.generation, startMs, depth),
      previousTraceId:
        entry.generation > 1
          ? this.#traceIdAt(
              entry,
              entry.generation - 1,
              startMs === undefined ? undefined : startMs - 1,
              depth,
            )
          : undefined,
    };
  }

  /**
   * The trace of `entry`'s generation `generation` (which was in force at
   * `atMs`): a request's (the current generation only), its parent's when
   * that was open then, else its own.
   */
  #traceIdAt(entry: Entry, generation: number, atMs: number | undefined, depth: number): string {
    const own = traceIdOf(generationTraceKey(this.#cluster, entry.uid, generation));
    if (generation === entry.generation && entry.requestTraceId !== undefined) return entry.requestTraceId;
    const parentUid =
      entry.rules.parent === "owner"
        ? entry.ownerUid
        : entry.rules.parent === "source" && entry.sourceKey !== undefined
          ? this.#byName.get(entry.sourceKey)
          : undefined;
    if (parentUid === undefined || atMs === undefined || depth >= maxDepth) return own;
    const parent = this.#byUid.get(parentUid);
    if (!parent || (entry.rules.parent === "owner" && `${parent.group}/${parent.kind}` !== entry.ownerKind))
      return own;
    // Stryker disable next-line StringLiteral: only the trace id and openness of the join are read here, never its span id
    const rootOf = (uid: string, g: number) => spanIdOf(generationTraceKey(this.#cluster, uid, g), "root");
    const resolved = resolveJoin(this.#target(parent, depth + 1), atMs, this.#timeoutMs, rootOf);
    return resolved?.open ? resolved.traceId : own;
  }
}
