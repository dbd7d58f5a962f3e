// Two Jaeger traces of the same objects, span for span: what one process
// exported against what several (shards) exported, as a readable diff.
//
// Every field derived from server timestamps must be equal: trace and span
// id, operation, CHILD_OF parent, FOLLOWS_FROM links, start and end, span
// attributes and events. What a process takes from its own clock (docs/tracing.md:
// `observed`) cannot be: a span whose start is `observed` and whose id is keyed
// by it (phase spans: `phase=<name>|since=<ms>`), and a start or end time marked
// `observed`. Such spans are paired by everything else they carry (trace,
// operation, parent, attributes) and their clock-derived fields are named in
// `clockDerived`, not compared. Process tags (service, host, shard) are the
// process's, not the span's: never compared.
import type { JaegerSpan, JaegerTrace } from "./index.ts";

const START_SOURCE = "cr_status.start_source";
const END_SOURCE = "cr_status.end_source";
const OBJECT_NAME = "k8s.object.name";

const tagOf = (span: JaegerSpan, key: string): unknown => span.tags.find((t) => t.key === key)?.value;

const isRoot = (span: JaegerSpan) => !span.references.some((r) => r.refType === "CHILD_OF");

/** A child whose start is this process's clock: its span id is keyed by that time (phase spans, or a condition without lastTransitionTime). */
const clockKeyedId = (span: JaegerSpan) => !isRoot(span) && tagOf(span, START_SOURCE) === "observed";

const refs = (span: JaegerSpan, type: "CHILD_OF" | "FOLLOWS_FROM") =>
  span.references
    .filter((r) => r.refType === type)
    .map((r) => `${r.traceID}/${r.spanID}`)
    .sort()
    .join(", ") || "(none)";

const iso = (micros: number) =>
  new Date(micros / 1000).toISOString().replace("Z", `${String(micros % 1000).padStart(3, "0")}Z`);

/** The fields compared, by name; clock-derived ones left out. */
function fields(span: JaegerSpan): Map<string, string> {
  const out = new Map<string, string>();
  out.set("trace id", span.traceID);
  if (!clockKeyedId(span)) out.set("span id", span.spanID);
  out.set("operation", span.operationName);
  out.set("CHILD_OF", refs(span, "CHILD_OF"));
  out.set("FOLLOWS_FROM", refs(span, "FOLLOWS_FROM"));
  if (tagOf(span, START_SOURCE) !== "observed") out.set("start", iso(span.startTime));
  if (tagOf(span, END_SOURCE) !== "observed") out.set("end", iso(span.startTime + span.duration));
  for (const t of [...span.tags].sort((a, b) => a.key.localeCompare(b.key)))
    out.set(`attribute ${t.key}`, JSON.stringify(t.value));
  const events = (span.logs ?? []).map((log) =>
    log.fields
      .map((f) => `${f.key}=${JSON.stringify(f.value)}`)
      .sort()
      .join(" "),
  );
  // Events carry the time the process saw them (a reason change) or a server time: compared without it.
  out.set("events", events.sort().join(" | ") || "(none)");
  return out;
}

/** What pairs a clock-keyed span with its counterpart: every compared field but the time-bound ones. */
function pairingKey(span: JaegerSpan): string {
  return [...fields(span)]
    .filter(([name]) => name !== "start" && name !== "end")
    .map(([name, value]) => `${name}=${value}`)
    .join("\n");
}

export function describeSpan(span: JaegerSpan): string {
  const name = tagOf(span, OBJECT_NAME);
  return `${span.operationName}${name === undefined ? "" : ` ${String(name)}`} [${span.spanID}]`;
}

export interface TraceDiff {
  /** Spans paired (by id, or for clock-keyed ids by everything else they carry). */
  paired: number;
  onlyLeft: JaegerSpan[];
  onlyRight: JaegerSpan[];
  /** Per pair that differs: the span and its differing fields. */
  differing: { span: string; fields: { name: string; left: string; right: string }[] }[];
  /** Clock-derived fields of the pairs, not compared (for the record). */
  clockDerived: string[];
}

/** Compares two traces span for span. */
export function diffTraces(left: JaegerTrace | undefined, right: JaegerTrace | undefined): TraceDiff {
  const a = [...(left?.spans ?? [])];
  const b = [...(right?.spans ?? [])];
  const pairs: [JaegerSpan, JaegerSpan][] = [];
  const byId = new Map(b.filter((s) => !clockKeyedId(s)).map((s) => [s.spanID, s]));
  const restA: JaegerSpan[] = [];
  for (const span of a) {
    const other = clockKeyedId(span) ? undefined : byId.get(span.spanID);
    if (other) {
      pairs.push([span, other]);
      byId.delete(span.spanID);
    } else restA.push(span);
  }
  const restB = b.filter((s) => clockKeyedId(s) || byId.has(s.spanID));
  const onlyLeft: JaegerSpan[] = [];
  for (const span of restA) {
    const key = clockKeyedId(span) ? pairingKey(span) : undefined;
    const at = key === undefined ? -1 : restB.findIndex((s) => clockKeyedId(s) && pairingKey(s) === key);
    if (at < 0) onlyLeft.push(span);
    else pairs.push([span, restB.splice(at, 1)[0] as JaegerSpan]);
  }
  const differing: TraceDiff["differing"] = [];
  const clockDerived: string[] = [];
  for (const [x, y] of pairs) {
    const fx = fields(x);
    const fy = fields(y);
    const names = [...new Set([...fx.keys(), ...fy.keys()])];
    const apart = names
      .filter((n) => fx.get(n) !== fy.get(n))
      .map((name) => ({ name, left: fx.get(name) ?? "(absent)", right: fy.get(name) ?? "(absent)" }));
    if (apart.length > 0) differing.push({ span: describeSpan(x), fields: apart });
    const skipped = [
      clockKeyedId(x) && `span id ${x.spanID} / ${y.spanID}`,
      tagOf(x, START_SOURCE) === "observed" && `start ${iso(x.startTime)} / ${iso(y.startTime)}`,
      tagOf(x, END_SOURCE) === "observed" &&
        `end ${iso(x.startTime + x.duration)} / ${iso(y.startTime + y.duration)}`,
    ].filter(Boolean);
    if (skipped.length > 0) clockDerived.push(`${x.operationName}: ${skipped.join(", ")}`);
  }
  return { paired: pairs.length, onlyLeft, onlyRight: restB, differing, clockDerived };
}

export const alike = (d: TraceDiff): boolean =>
  d.onlyLeft.length === 0 && d.onlyRight.length === 0 && d.differing.length === 0;

/** The diff as text, the two sides named. */
export function renderDiff(d: TraceDiff, leftName: string, rightName: string): string {
  const lines = [`${d.paired} spans paired`];
  for (const s of d.onlyLeft) lines.push(`only in ${leftName}: ${describeSpan(s)}`);
  for (const s of d.onlyRight) lines.push(`only in ${rightName}: ${describeSpan(s)}`);
  for (const { span, fields: apart } of d.differing) {
    lines.push(`${span} differs:`);
    for (const f of apart) lines.push(`  ${f.name}: ${leftName} ${f.left}, ${rightName} ${f.right}`);
  }
  return lines.join("\n");
}
