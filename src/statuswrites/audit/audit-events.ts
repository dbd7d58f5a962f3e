// Reads the status writes out of an audit.k8s.io/v1 EventList, as the
// apiserver's audit webhook backend posts it (pure: no I/O). A batch that is
// not an EventList is rejected as a whole; single malformed events inside a
// valid batch are skipped and counted, so one bad event never loses the rest.
import type { StatusSummary } from "../classify.ts";
import { writeVerbs } from "../request-path.ts";

export interface AuditStatusWrite {
  group: string;
  version: string;
  resource: string;
  namespace: string;
  name: string;
  verb: string;
  /** HTTP code of the response (500 for a Panic stage). */
  code: number;
  status: StatusSummary;
  /** The identity the write was made as: the impersonated user when there is one. */
  user: string;
  /** From requestReceivedTimestamp to stageTimestamp; undefined when either is missing. */
  durationSeconds: number | undefined;
}

export interface AuditBatch {
  writes: AuditStatusWrite[];
  /** Events in the batch. */
  events: number;
  /** Events that were not objects or lacked the fields a status write needs. */
  malformed: number;
}

export class AuditPayloadError extends Error {}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The stages that carry the response: one per request with the usual `omitStages: [RequestReceived]`. */
const finalStages = new Set(["ResponseComplete", "Panic"]);

export function checkEnvelope(kind: unknown, apiVersion: unknown, items: unknown): void {
  if (kind !== "EventList") {
    throw new AuditPayloadError(`audit payload: kind must be EventList, got ${JSON.stringify(kind)}`);
  }
  if (apiVersion !== "audit.k8s.io/v1") {
    throw new AuditPayloadError(
      `audit payload: apiVersion must be audit.k8s.io/v1, got ${JSON.stringify(apiVersion)}`,
    );
  }
  if (!items) throw new AuditPayloadError("audit payload: items must be an array");
}

function readItems(items: Iterable<unknown>, count: number): AuditBatch {
  const batch: AuditBatch = { writes: [], events: count, malformed: 0 };
  for (const item of items) {
    const result = readEvent(item);
    if (result === "malformed") batch.malformed++;
    else if (result) batch.writes.push(result);
  }
  return batch;
}

export function parseAuditEventList(body: unknown): AuditBatch {
  if (!isObject(body)) throw new AuditPayloadError("audit payload: expected a JSON object");
  checkEnvelope(body.kind, body.apiVersion, Array.isArray(body.items));
  return readItems(body.items as unknown[], (body.items as unknown[]).length);
}

/** A status write, undefined for any other (valid) event, or "malformed". */
export function readEvent(item: unknown): AuditStatusWrite | undefined | "malformed" {
  if (!isObject(item)) return "malformed";
  const stage = text(item.stage);
  const verb = text(item.verb);
  if (stage === undefined || verb === undefined) return "malformed";
  const objectRef = item.objectRef;
  // Non-resource requests (/healthz, …) have no objectRef.
  if (objectRef === undefined) return undefined;
  if (!isObject(objectRef)) return "malformed";
  if (!finalStages.has(stage) || objectRef.subresource !== "status" || !writeVerbs.has(verb))
    return undefined;

  const resource = text(objectRef.resource);
  const user = effectiveUser(item);
  const response = isObject(item.responseStatus) ? item.responseStatus : undefined;
  const code = stage === "Panic" ? 500 : response?.code;
  if (!resource || user === undefined || typeof code !== "number" || !Number.isInteger(code)) {
    return "malformed";
  }
  return {
    group: text(objectRef.apiGroup) ?? "",
    version: text(objectRef.apiVersion) ?? "",
    resource,
    namespace: text(objectRef.namespace) ?? "",
    name: text(objectRef.name) ?? "",
    verb,
    code,
    status: { reason: text(response?.reason), message: text(response?.message) },
    user,
    durationSeconds: duration(item.requestReceivedTimestamp, item.stageTimestamp),
  };
}

function effectiveUser(item: Json): string | undefined {
  const impersonated = isObject(item.impersonatedUser) ? text(item.impersonatedUser.username) : undefined;
  if (impersonated) return impersonated;
  return isObject(item.user) ? text(item.user.username) : undefined;
}

function duration(received: unknown, stage: unknown): number | undefined {
  const start = typeof received === "string" ? Date.parse(received) : Number.NaN;
  const end = typeof stage === "string" ? Date.parse(stage) : Number.NaN;
  if (!Number.isFinite(start) || !Number.isFinite(end) || end < start) return undefined;
  return (end - start) / 1000;
}
