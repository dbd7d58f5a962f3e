// The store's rendered text as both OTLP encoders read it (encode.ts
// writes http/protobuf, json-encode.ts http/json): where a label of a line
// is and what attribute it becomes, a line's value, and a line's own labels
// and value kept per slot as the bytes that end its points, in the format's
// encoding, so that the next object with the same line is compared, not
// parsed. Pure: no I/O, no clock.
import { parseValue } from "../core/series/exposition.ts";
import { attributeRenames } from "./mapping.ts";
import { ProtoWriter } from "./proto-writer.ts";

const renames = Object.entries(attributeRenames);

/** The attribute a label in `text` [from, to) is renamed to, or undefined when it keeps its name. */
export function renamedAt(text: string, from: number, to: number): string | undefined {
  for (const [label, attribute] of renames) {
    if (to - from === label.length && text.startsWith(label, from)) return attribute;
  }
  return undefined;
}

/** Where one label of a line's text is: its name [at + 1, eq), its value [eq + 2, close). */
export interface LabelSpan {
  eq: number;
  close: number;
  /** The value's length once unescaped (0: an empty value, which is no attribute). */
  valueBytes: number;
}

/**
 * The label at `at` (`,a="x"` or `{a="x"`) into `span`; returns where it
 * ends, `at` when none starts there. Both encoders read labels here.
 */
export function labelAt(text: string, at: number, span: LabelSpan): number {
  const c = text.charCodeAt(at);
  if (c !== 44 /* , */ && c !== 123 /* { */) return at;
  const eq = text.indexOf('="', at + 1);
  if (eq === -1) return at;
  const end = text.length;
  let valueBytes = 0;
  let close = eq + 2;
  for (; close < end; close++) {
    const v = text.charCodeAt(close);
    if (v === 34 /* " */) break;
    if (v === 92 /* \ */) close++;
    valueBytes++;
  }
  if (close >= end) return at;
  span.eq = eq;
  span.close = close;
  span.valueBytes = valueBytes;
  return close + 1;
}

/** A sample value at `from` to `to` in `text`, as parseValue reads it (whole numbers of up to 15 digits without a slice). */
export function valueAt(text: string, from: number, to: number): number {
  let i = from;
  const negative = text.charCodeAt(i) === 45; /* - */
  if (negative) i++;
  if (to - i > 0 && to - i <= 15) {
    let n = 0;
    for (; i < to; i++) {
      const d = text.charCodeAt(i) - 48;
      if (d < 0 || d > 9) break;
      n = n * 10 + d;
    }
    if (i === to) return negative ? -n : n;
  }
  return parseValue(text.slice(from, to));
}

/** How a format writes a line's tail: its own labels, then (or before them) its value. */
export interface TailFormat {
  /** Where the labels start (the protobuf value's 8 bytes come first). */
  readonly labelsFrom: number;
  /** Writes the labels of `text` at `from`; returns the index of the first character that starts no label. */
  labels(text: string, from: number, w: ProtoWriter): number;
  /** After the labels (the JSON attributes' closing bracket). */
  closeLabels(w: ProtoWriter): void;
  /** Writes the value; `labelsEnd` is where closeLabels left off. */
  value(w: ProtoWriter, value: number, labelsEnd: number): void;
}

/**
 * A line's own labels and value (`,type="Ready",status="True"} 1`) as a
 * point's last bytes, in the format's encoding, kept per slot and line:
 * objects in the same state have the same labels on the same line, most
 * often the same value too, so most lines are compared, not parsed.
 */
export class LineTail {
  readonly #format: TailFormat;
  /** The labels, up to their closing brace. */
  labels = "";
  /** The whole line `bytes` hold, "" while the value last read differed from the one before. */
  line = "";
  value = 0;
  readonly bytes = new ProtoWriter(256);
  #labelsEnd = 0;
  /** `bytes` as written. */
  view: Uint8Array;

  constructor(format: TailFormat) {
    this.#format = format;
    this.#noLabels();
    this.view = this.#value(0);
  }

  /** Whether the line last read is a point (`view` its tail). */
  point = false;

  /** Reads the line at [from, to) of `text`. */
  read(text: string, from: number, to: number): void {
    this.point = this.#read(text, from, to);
  }

  #read(text: string, from: number, to: number): boolean {
    const line = this.line;
    if (line.length === to - from && line.length > 0 && text.startsWith(line, from)) return true;
    const known = this.labels.length;
    // Equal text up to a closing brace: the same labels (the brace cannot be inside a value the text shares).
    if (text.charCodeAt(from + known) === 125 /* } */ && text.startsWith(this.labels, from)) {
      const value = valueAt(text, from + known + 2, to);
      // The same value twice running: kept whole, compared whole from now on. A value that changes
      // from line to line (a timestamp) is parsed each time instead, rather than each time a new string.
      if (Object.is(value, this.value)) this.line = text.slice(from, to);
      else this.view = this.#value(value);
      return true;
    }
    const bytes = this.bytes;
    bytes.pos = this.#format.labelsFrom;
    const close = this.#format.labels(text, from, bytes);
    if (close >= to || text.charCodeAt(close) !== 125 /* } */) {
      this.labels = "";
      this.#noLabels();
      this.view = this.#value(0);
      return false;
    }
    this.#format.closeLabels(bytes);
    this.#labelsEnd = bytes.pos;
    this.labels = text.slice(from, close);
    this.view = this.#value(valueAt(text, close + 2, to));
    this.line = text.slice(from, to);
    return true;
  }

  #noLabels(): void {
    this.bytes.pos = this.#format.labelsFrom;
    this.#format.closeLabels(this.bytes);
    this.#labelsEnd = this.bytes.pos;
  }

  #value(value: number): Uint8Array {
    this.value = value;
    this.line = "";
    this.#format.value(this.bytes, value, this.#labelsEnd);
    return this.bytes.buf.subarray(0, this.bytes.pos);
  }
}

/**
 * A slot's lines as last read, one LineTail each: the next object's are
 * often the very same text (a label-only family's lines are one shared
 * string for every object in the same state, see shared-texts.ts), and then
 * not even read.
 */
export class SlotTails {
  readonly #format: TailFormat;
  text: string | undefined;
  readonly lines: LineTail[] = [];
  /** Lines in `text`. */
  count = 0;

  constructor(format: TailFormat) {
    this.#format = format;
  }

  read(tails: string): void {
    if (tails === this.text) return;
    let line = 0;
    for (let from = 0; ; line++) {
      const newline = tails.indexOf("\n", from);
      const to = newline === -1 ? tails.length : newline;
      let tail = this.lines[line];
      if (!tail) {
        tail = new LineTail(this.#format);
        this.lines.push(tail);
      }
      tail.read(tails, from, to);
      if (newline === -1) break;
      from = newline + 1;
    }
    this.count = line + 1;
    this.text = tails;
  }
}
