// The reading both request encoders share (encode.ts writes http/protobuf,
// json-encode.ts http/json): every selected per-object family of every
// object of every per-object store, then the aggregate families and the
// registry in the last request. A request is taken once the points written
// pass `batchBytes` (after a whole object: its points are never split), and
// reading and writing go on only while a turn's budget lasts (net/turns.ts,
// shared with scrapes and every other sliced request, so a scrape during an
// export does not wait for two slices in one turn). What a point's bytes are
// is the format's; when a request ends and when the loop gets its turn are
// decided here, once for both, and PointBatch keeps what both keep while a
// request is read (its families, its points, an object's lines as points).

import type { DataPoint, Histogram } from "@opentelemetry/sdk-metrics";
import type { ObjectEntry } from "../core/entry.ts";
import { objectFamilies } from "../core/series/catalog.ts";
import type { ObjectSeries } from "../core/series/render.ts";
import { sharedTurns } from "../net/turns.ts";
import { type LineTail, SlotTails, type TailFormat } from "./line-text.ts";
import {
  aggregatePoints,
  type Family,
  type PointSink,
  type ReadOptions,
  readRegistry,
  registryPointsOf,
  Stretches,
} from "./points.ts";
import type { ProtoWriter } from "./proto-writer.ts";

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

/** One metric of the request being read, in a format's encoding: what comes before and after its points, and them. */
export interface BatchFamily {
  readonly family: Family;
  readonly head: Buffer;
  readonly tail: Buffer;
  readonly points: ProtoWriter;
  count: number;
}

/**
 * What both formats keep while a request is read: the families by name
 * (kept between requests and exports, a new one when a family changes its
 * type or help), those of the request in the order of their first point (the
 * SDK batch's order), the points and bytes written, and the loop that makes
 * each line of an object one point: the object's head for its kind, then
 * the line's tail. A format says how a point is framed (`frame`), what an
 * object's heads are (`objectHeads`), and how a request is assembled.
 */
export abstract class PointBatch<F extends BatchFamily> implements FormatWriter<F> {
  readonly #unitOf: (name: string) => string;
  readonly #families = new Map<string, F>();
  /** Families of the request being read, in the order of their first point. */
  protected readonly order: F[] = [];
  /** The lines last seen per slot: the next object's are most often the same. */
  readonly #seen: SlotTails[];
  /** What every point of the current object starts with, for its gauges and for its counters. */
  protected gaugeView: Uint8Array = Buffer.alloc(0);
  protected counterView: Uint8Array = Buffer.alloc(0);
  #points = 0;
  #bytes = 0;
  longestSliceMs = 0;

  constructor(unitOf: (name: string) => string, tails: TailFormat) {
    this.#unitOf = unitOf;
    this.#seen = objectFamilies.map(() => new SlotTails(tails));
  }

  /**
   * The export's requests, read lazily: each is a view of the encoder's
   * buffer, to be sent before the next one is asked for.
   */
  requests(options: EncodeOptions): AsyncGenerator<EncodedRequest> {
    return encodeRequests(this, options);
  }

  get pendingBytes(): number {
    return this.#bytes;
  }

  get pendingPoints(): number {
    return this.#points;
  }

  abstract begin(options: EncodeOptions): void;
  abstract add(family: Family, point: DataPoint<number> | DataPoint<Histogram>): void;
  abstract take(): EncodedRequest;

  family(family: Family): F {
    let f = this.#families.get(family.name);
    if (!f || f.family.type !== family.type || f.family.help !== family.help) {
      f = this.newFamily(family, this.#unitOf(family.name));
      this.#families.set(family.name, f);
    }
    return f;
  }

  protected abstract newFamily(family: Family, unit: string): F;

  object(series: ObjectSeries, selected: number, families: readonly F[], counterStartMs: number): void {
    this.objectHeads(series.open, counterStartMs);
    this.#objectPoints(series, selected, families);
  }

  /** Sets gaugeView and counterView for the object whose labels `open` holds. */
  protected abstract objectHeads(open: string, counterStartMs: number): void;

  /** A line's tail as this object's points end with it. */
  protected lineView(tail: LineTail): Uint8Array {
    return tail.view;
  }

  /** Every line of the object's selected slots, each one point: the object's head, then the line's tail. */
  #objectPoints(series: ObjectSeries, selected: number, families: readonly F[]): void {
    let index = 0;
    for (let slot = 0; slot < families.length; slot++) {
      const bit = 1 << slot;
      if (!(series.slots & bit)) continue;
      const tails = series.tails[index++] as string;
      if (!(selected & bit)) continue;
      const f = families[slot] as F;
      const head = f.family.type === "counter" ? this.counterView : this.gaugeView;
      const seen = this.#seen[slot] as SlotTails;
      seen.read(tails);
      for (let line = 0; line < seen.count; line++) {
        const tail = seen.lines[line] as LineTail;
        if (!tail.point) continue;
        const view = this.lineView(tail);
        const w = this.startPoint(f, head.length + view.length);
        // Room for the whole point was ensured: written without a check per part.
        w.buf.set(head, w.pos);
        w.buf.set(view, w.pos + head.length);
        w.pos += head.length + view.length;
        this.endPoint(f, w);
      }
    }
  }

  /** The family's points' writer, with room for a point of `body` bytes and what frames it. */
  protected startPoint(f: F, body: number): ProtoWriter {
    if (f.count === 0) this.order.push(f);
    const w = f.points;
    this.#bytes -= w.pos;
    this.frame(w, body, f.count === 0);
    return w;
  }

  /** Ensures room for a point of `body` bytes and writes what comes before it. */
  protected abstract frame(w: ProtoWriter, body: number, first: boolean): void;

  protected endPoint(f: F, w: ProtoWriter): void {
    f.count++;
    this.#points++;
    this.#bytes += w.pos;
  }

  clear(): void {
    for (const f of this.order) {
      f.points.reset();
      f.count = 0;
    }
    this.order.length = 0;
    this.#points = 0;
    this.#bytes = 0;
  }
}
