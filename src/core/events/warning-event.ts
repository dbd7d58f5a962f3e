// Kubernetes Warning Events (events.k8s.io/v1), pure: what the exporter keeps
// of one (the object it regards, its reason, a cut message, how many times it
// happened and when), how many new occurrences one version of it adds, a
// bounded memory of the counts last seen per event, and the per-kind bound on
// reasons. No I/O and no clock of its own.
//
// Counting. An event is one record per (object, reason, message) that the
// reporting controller rewrites as the same thing happens again: its
// `series.count` (or `deprecatedCount`, from the core/v1 API) goes up. So an
// occurrence is counted as the increase over the count last seen for that
// event's uid: an update with the same count adds nothing, a deleted event
// (its TTL passed) takes nothing back. An event never seen before is counted
// whole when it began after the watch started (an event created while the
// exporter runs, or while its watch was down), and not at all when it began
// earlier: history before the process started is not counted, so a restarted
// exporter starts its counters at 0 (a counter reset, which rate() and
// increase() handle) and never counts an occurrence a previous process
// counted. Within one process life no occurrence is counted twice: a relist
// finds the counts remembered, and the memory is bounded (maxRemembered
// events; beyond, the least recently updated is forgotten and every unknown
// event that began no later than it is taken as already counted).
import { otherLabelValue } from "../change/label-bounds.ts";
import { capText } from "../change/transition-ring.ts";
import { capLabelValue } from "../label-values.ts";
import { parseTimestamp } from "../project/timestamps.ts";

/** Characters of an event's message kept as the object's latest warning. */
export const warningMessageChars = 256;

/** Events whose last count is remembered (156 bytes each, bench/warning-events.ts: 7.5 MiB at the cap). */
export const maxRememberedEvents = 50_000;

/** The object an event is about (its `regarding`). */
export interface EventRegarding {
  /** "" for the core API group. */
  group: string;
  kind: string;
  namespace: string;
  name: string;
  uid: string | undefined;
}

export interface WarningEvent {
  uid: string;
  regarding: EventRegarding;
  /** Cut to the label value length. */
  reason: string;
  /** The event's note, cut to warningMessageChars. */
  message: string;
  /** Occurrences so far: series.count, else deprecatedCount, at least 1. */
  count: number;
  /** Epoch seconds of the first occurrence: eventTime, else deprecatedFirstTimestamp, else creation. */
  firstAt: number | undefined;
  /** Epoch seconds of the latest occurrence: series.lastObservedTime, else deprecatedLastTimestamp, else firstAt. */
  lastAt: number | undefined;
}

/** What the status page, the API and the CLI show of an object's latest warning. */
export interface LatestWarning {
  reason: string;
  message: string;
  /** Epoch seconds. */
  at: number;
}

type Raw = Record<string, unknown>;

const record = (value: unknown): Raw | undefined =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Raw) : undefined;
const str = (value: unknown): string => (typeof value === "string" ? value : "");
const positive = (value: unknown): number =>
  typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;

/**
 * Epoch seconds of a MicroTime (eventTime, series.lastObservedTime) with its
 * fraction: an event begun within the second the watch started is then told
 * from one begun just before it. (The deprecated timestamps have whole
 * seconds only: one of them in the start's second counts as before it.)
 */
function preciseTime(value: unknown): number | undefined {
  if (typeof value !== "string" || value === "") return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms / 1000 : undefined;
}

/** The group of an apiVersion (`example.com/v1` → example.com, `v1` → ""). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

/** A Warning event as kept, or undefined for anything else (a Normal event, one without uid or regarding kind). */
export function projectWarningEvent(raw: unknown): WarningEvent | undefined {
  const event = record(raw);
  const metadata = record(event?.metadata);
  const regarding = record(event?.regarding);
  const uid = str(metadata?.uid);
  if (event?.type !== "Warning" || uid === "" || !regarding || str(regarding.kind) === "") return undefined;
  const series = record(event.series);
  const firstAt =
    preciseTime(event.eventTime) ??
    parseTimestamp(event.deprecatedFirstTimestamp) ??
    parseTimestamp(metadata?.creationTimestamp);
  const regardingUid = str(regarding.uid);
  return {
    uid,
    regarding: {
      group: groupOf(str(regarding.apiVersion)),
      kind: str(regarding.kind),
      namespace: str(regarding.namespace),
      name: str(regarding.name),
      uid: regardingUid === "" ? undefined : regardingUid,
    },
    reason: capLabelValue(str(event.reason)),
    message: capText(str(event.note), warningMessageChars),
    count: Math.max(1, positive(series?.count), positive(event.deprecatedCount)),
    firstAt,
    lastAt: preciseTime(series?.lastObservedTime) ?? parseTimestamp(event.deprecatedLastTimestamp) ?? firstAt,
  };
}

/** The object's latest warning after `event`: the newer of the two (an older event changes nothing). */
export function latestWarning(
  current: LatestWarning | undefined,
  event: WarningEvent,
): LatestWarning | undefined {
  const at = event.lastAt;
  if (at === undefined || (current !== undefined && current.at > at)) return current;
  if (current && current.at === at && current.reason === event.reason && current.message === event.message)
    return current;
  return { reason: event.reason, message: event.message, at };
}

interface Remembered {
  count: number;
  /** When the event began (see WarningEvent.firstAt); -Infinity when unknown. */
  firstAt: number;
  /** The watch scope it was seen in ("" = every namespace), to sweep after a relist of that scope. */
  scope: string;
}

/**
 * The count last seen per event uid, at most `cap` of them (the least
 * recently updated forgotten first), and what to count for a new version.
 */
export class EventMemory {
  readonly #seen = new Map<string, Remembered>();
  readonly #cap: number;
  /** Epoch seconds from which unknown events are counted: the watch's start. */
  readonly #countFrom: number;
  /** The latest start of an event forgotten for the cap: unknown events begun by then may have been counted. */
  #forgottenUpTo = Number.NEGATIVE_INFINITY;

  constructor(countFrom: number, cap = maxRememberedEvents) {
    this.#countFrom = countFrom;
    this.#cap = cap;
  }

  get size(): number {
    return this.#seen.size;
  }

  /**
   * Occurrences of `event` not counted yet, remembering its count: the
   * increase over the last count seen; for an unknown event, all of them when
   * it began since the watch started (and after anything forgotten), else 0.
   */
  occurrences(event: WarningEvent, scope: string): number {
    const known = this.#seen.get(event.uid);
    const firstAt = event.firstAt ?? Number.NEGATIVE_INFINITY;
    let added: number;
    if (known) {
      added = Math.max(0, event.count - known.count);
      // Re-inserted: the map's order is the order of last update.
      this.#seen.delete(event.uid);
    } else {
      added = firstAt >= this.#countFrom && firstAt > this.#forgottenUpTo ? event.count : 0;
    }
    this.#seen.set(event.uid, { count: Math.max(event.count, known?.count ?? 0), firstAt, scope });
    if (this.#seen.size > this.#cap) this.#forgetOldest();
    return added;
  }

  /** The event is gone (deleted, or its TTL passed): its occurrences stay counted. */
  forget(uid: string): void {
    this.#seen.delete(uid);
  }

  /** After a full list of `scope`: events of it the list did not return are gone. */
  sweep(scope: string, listed: ReadonlySet<string>): void {
    for (const [uid, seen] of this.#seen)
      if (seen.scope === scope && !listed.has(uid)) this.#seen.delete(uid);
  }

  #forgetOldest(): void {
    const oldest = this.#seen.keys().next();
    if (oldest.done) return;
    const seen = this.#seen.get(oldest.value) as Remembered;
    this.#forgottenUpTo = Math.max(this.#forgottenUpTo, seen.firstAt);
    this.#seen.delete(oldest.value);
  }
}

/** The reason label of a kind's warnings: the first `limit` distinct reasons as themselves, later ones "other". */
export class ReasonBound {
  readonly #kept = new Set<string>();
  #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** A new limit (a reload): reasons kept stay kept, new ones wait for room. */
  set limit(limit: number) {
    this.#limit = limit;
  }

  label(reason: string): string {
    if (this.#kept.has(reason)) return reason;
    if (reason === otherLabelValue || this.#kept.size >= this.#limit) return otherLabelValue;
    this.#kept.add(reason);
    return reason;
  }
}
