// Reads an EventList as its bytes arrive (event-list-stream.ts) and keeps
// only what the metrics need: each event is looked at once complete and
// dropped, and status writes are kept grouped by everything their labels come
// from, with one duration each. A batch of tens of megabytes so costs one event
// plus 8 bytes per status write, never the body, its string or its events.

import { classifyFailure, type FailureReason } from "../classify.ts";
import { type AuditBatch, checkEnvelope, readEvent } from "./audit-events.ts";
import { ObjectStream, type StreamLimits } from "./event-list-stream.ts";

/** Status writes of one batch that differ only in their object name and duration. */
export interface StatusWriteGroup {
  group: string;
  version: string;
  resource: string;
  namespace: string;
  verb: string;
  code: number;
  failure: FailureReason | undefined;
  user: string;
  /** Seconds of each write, in order; NaN where unknown. */
  durations: number[];
}

export interface AuditBatchSummary extends Omit<AuditBatch, "writes"> {
  groups: StatusWriteGroup[];
  /** Status writes in the batch. */
  writes: number;
}

export class AuditBatchReader {
  readonly #stream: ObjectStream;
  readonly #groups = new Map<string, StatusWriteGroup>();
  #writes = 0;
  #malformed = 0;

  constructor(limits: StreamLimits) {
    this.#stream = new ObjectStream("items", (item) => this.#add(item), limits);
  }

  /** Throws JsonStreamError when the bytes are not JSON, or a value is over its limit. */
  write(chunk: Buffer): void {
    this.#stream.write(chunk);
  }

  /** Bytes of the event (or member) being read. */
  get heldBytes(): number {
    return this.#stream.heldBytes;
  }

  /** The batch; throws JsonStreamError (incomplete) or AuditPayloadError (not an EventList). */
  end(): AuditBatchSummary {
    this.#stream.end();
    const members = this.#stream.members;
    checkEnvelope(
      members.get("kind"),
      members.get("apiVersion"),
      this.#stream.arraySeen && !this.#stream.arrayNotArray,
    );
    return {
      groups: [...this.#groups.values()],
      writes: this.#writes,
      events: this.#stream.elements,
      malformed: this.#malformed,
    };
  }

  #add(item: unknown): void {
    const write = readEvent(item);
    if (write === "malformed") {
      this.#malformed++;
      return;
    }
    if (!write) return;
    this.#writes++;
    // Classified now: the Status message (which names the object) is not kept.
    const failure = classifyFailure(write.code, write.status);
    const key = JSON.stringify([
      write.group,
      write.version,
      write.resource,
      write.namespace,
      write.verb,
      write.code,
      failure,
      write.user,
    ]);
    let group = this.#groups.get(key);
    if (!group) {
      const { group: apiGroup, version, resource, namespace, verb, code, user } = write;
      group = { group: apiGroup, version, resource, namespace, verb, code, failure, user, durations: [] };
      this.#groups.set(key, group);
    }
    group.durations.push(write.durationSeconds ?? Number.NaN);
  }
}
