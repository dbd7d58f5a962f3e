// The reading both request encoders share (encode.ts writes http/protobuf,
// json-encode.ts http/json): every selected per-object family of every
// object of every per-object store, then the aggregate families and the
// registry in the last request. A request is taken once the points written
// pass `batchBytes` (after a whole object: its points are never split), and
// reading and writing go on only while a turn's budget lasts (net/turns.ts,
// shared with scrapes and every other sliced request, so a scrape during an
// export does not wait for two slices in one turn). What a point's bytes are
// is the format's; when a request ends and when the loop gets its turn are
// decided here, once for both.

import type { ObjectEntry } from "../core/entry.ts";
import { objectFamilies } from "../core/series/catalog.ts";
import type { ObjectSeries } from "../core/series/render.ts";
import { sharedTurns } from "../net/turns.ts";
import {
  aggregatePoints,
  type Family,
  type PointSink,
  type ReadOptions,
  readRegistry,
  registryPointsOf,
  Stretches,
} from "./points.ts";

export interface EncodeOptions extends ReadOptions {
  /** A request is assembled once its points' bytes pass this (an object's points are never split). */
  batchBytes: number;
}

export interface EncodedRequest {
  /** A view of the encoder's buffer: valid until the next request is asked for. */
  payload: Buffer;
  points: number;
}

/** One wire format's writing of points and requests, driven by encodeRequests. */
export interface FormatWriter<F> extends PointSink {
  /** A new export: its resource, scope and time. */
  begin(options: EncodeOptions): void;
  /** The format's state for one metric family (kept between requests and exports). */
  family(family: Family): F;
  /** Every line of the object's selected slots, one point each. */
  object(series: ObjectSeries, selected: number, families: readonly F[], counterStartMs: number): void;
  /** Bytes of the points written since the last request. */
  readonly pendingBytes: number;
  readonly pendingPoints: number;
  /** The points written so far as one request; the writer emptied for the next. */
  take(): EncodedRequest;
  /** Drops what was written (an export given up half way, or finished). */
  clear(): void;
  /** The longest synchronous stretch of the last export (ms). */
  longestSliceMs: number;
}

/**
 * The export's requests, read lazily: each is a view of the writer's
 * buffer, to be sent before the next one is asked for.
 */
export async function* encodeRequests<F>(
  writer: FormatWriter<F>,
  options: EncodeOptions,
): AsyncGenerator<EncodedRequest> {
  writer.begin(options);
  const turns = options.turns ?? sharedTurns;
  const clock = new Stretches();
  // An export has a deadline (its timeout): its turns come first, as a scrape's.
  const nextTurn = async (): Promise<void> => {
    clock.stop();
    await turns.next("first");
    clock.restart();
  };
  try {
    await nextTurn();
    for (const source of options.sources) {
      const objects = source.objects?.();
      if (!objects) continue;
      const families = familiesOf(writer, objects.names);
      for (const entry of objects.entries) {
        const series = entry.series;
        if (!series || !(series.slots & objects.selected)) continue;
        writer.object(series, objects.selected, families, counterStartMs(entry, options.startMs));
        if (writer.pendingBytes >= options.batchBytes) {
          const request = writer.take();
          clock.stop();
          yield request;
          await nextTurn();
        } else if (!turns.open()) await nextTurn();
      }
    }
    aggregatePoints(options, writer);
    clock.stop();
    const registry = await readRegistry(options.registry);
    await nextTurn();
    registryPointsOf(registry, options, writer);
    if (writer.pendingPoints > 0) {
      const request = writer.take();
      clock.stop();
      yield request;
    }
  } finally {
    writer.longestSliceMs = clock.longestMs;
    writer.clear();
  }
}

/** The writer's families of a store, by slot. */
const familiesOf = <F>(writer: FormatWriter<F>, names: readonly string[]): F[] =>
  objectFamilies.map((f) => writer.family({ name: names[f.slot] as string, type: f.type, help: f.help }));

/** A counter counts from when its series first appeared: this process's start, or the object's creation after it. */
const counterStartMs = (entry: ObjectEntry, processStartMs: number): number =>
  Math.max(processStartMs, (entry.state.creationTimestamp ?? 0) * 1000);
