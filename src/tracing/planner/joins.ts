// What a new root span joins besides its own object's history: the request
// that started it (a W3C trace context in an annotation), its controller
// owner's root and its source's root (tracing/joins.ts resolves which of the
// parent's generations). A generation root becomes the child of one of them
// — the request first, else the configured parent (tracing.parent) when its
// root was still open — and links to the others. Degraded roots only link.
import * as attr from "../attributes.ts";
import { generationTraceKey, spanIdOf } from "../ids.ts";
import { type JoinTarget, parseTraceContext, resolveJoin } from "../joins.ts";
import type { Joins, SpanAttributes, SpanLinkPlan } from "./model.ts";
import type { Step } from "./step.ts";

/** How a generation root joins: its parent (if any) and its links. */
export interface RootJoin {
  /** Set when the root hangs under another span: that span's trace. */
  traceId: string | undefined;
  parentSpanId: string | undefined;
  traceState: string | undefined;
  parent: "owner" | "source" | "request" | undefined;
  links: SpanLinkPlan[];
  /** The request context that parented it (`<trace id>-<span id>`). */
  requestContext: string | undefined;
}

function targetLink(
  step: Step,
  reason: "owner" | "source",
  target: JoinTarget,
  startMs: number,
  asParent: boolean,
): { link?: SpanLinkPlan; parent?: { traceId: string; spanId: string } } {
  const { cluster, timeoutMs } = step.settings;
  const rootOf = (uid: string, generation: number) =>
    spanIdOf(generationTraceKey(cluster, uid, generation), "root");
  const resolved = resolveJoin(target, startMs, timeoutMs, rootOf);
  if (!resolved) return {};
  if (asParent && resolved.open) return { parent: { traceId: resolved.traceId, spanId: resolved.spanId } };
  const attributes: SpanAttributes = { [attr.LINK_REASON]: reason, [attr.LINK_KIND]: target.kind };
  if (!resolved.open) attributes[attr.LINK_ENDED] = true;
  return { link: { traceId: resolved.traceId, spanId: resolved.spanId, attributes } };
}

/** The joins of a generation root starting at `startMs`. Notes a malformed trace context on the step. */
export function joinGeneration(step: Step, joins: Joins | undefined, startMs: number): RootJoin {
  const join: RootJoin = {
    traceId: undefined,
    parentSpanId: undefined,
    traceState: undefined,
    parent: undefined,
    links: [],
    requestContext: undefined,
  };
  if (!joins) return join;
  if (joins.traceContext !== undefined) {
    const request = parseTraceContext(joins.traceContext);
    if (!request) step.malformedTraceContext = true;
    else {
      const key = `${request.traceId}-${request.spanId}`;
      if (key === step.state.requestContext) {
        // The same request does not start two generations: the later one links to it.
        join.links.push({
          traceId: request.traceId,
          spanId: request.spanId,
          attributes: { [attr.LINK_REASON]: "request" },
        });
      } else {
        join.traceId = request.traceId;
        join.parentSpanId = request.spanId;
        join.traceState = request.traceState;
        join.parent = "request";
        join.requestContext = key;
      }
    }
  }
  for (const reason of ["owner", "source"] as const) {
    const target = joins[reason];
    if (!target) continue;
    const asParent = join.parent === undefined && joins.parent === reason;
    const { link, parent } = targetLink(step, reason, target, startMs, asParent);
    if (parent) {
      join.traceId = parent.traceId;
      join.parentSpanId = parent.spanId;
      join.parent = reason;
    }
    if (link) join.links.push(link);
  }
  return join;
}

/** The links of a degraded root starting at `startMs`: its owner's and source's roots in force then. */
export function joinDegraded(step: Step, joins: Joins | undefined, startMs: number): SpanLinkPlan[] {
  const links: SpanLinkPlan[] = [];
  for (const reason of ["owner", "source"] as const) {
    const target = joins?.[reason];
    if (!target) continue;
    const { link } = targetLink(step, reason, target, startMs, false);
    if (link) links.push(link);
  }
  return links;
}
