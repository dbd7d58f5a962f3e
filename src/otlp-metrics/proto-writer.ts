// Protocol-buffers wire primitives for the OTLP encoder (encode.ts): a
// growing byte buffer that is reset, not reallocated, between uses (so an
// export's million points allocate nothing per point), varints, fixed64 times
// and little-endian doubles. Lengths of nested messages are the caller's:
// either known before the message is written (varintBytes) or the message is
// written to a second writer and copied. Pure: no I/O, no clock.

/** Wire types of the protocol-buffers encoding. */
export const wire = { varint: 0, fixed64: 1, bytes: 2 } as const;

/** The key byte(s) of a field: number and wire type. */
export const tagOf = (field: number, type: number): number => (field << 3) | type;

const two32 = 2 ** 32;

/** Bytes of `value` (a whole number in [0, 2^53)) as a varint. */
export function varintBytes(value: number): number {
  if (value < 0x80) return 1;
  if (value < 0x4000) return 2;
  if (value < 0x200000) return 3;
  if (value < 0x10000000) return 4;
  let n = 4;
  for (let rest = Math.floor(value / 0x10000000); rest > 0; rest = Math.floor(rest / 0x80)) n++;
  return n;
}

/** Bytes of a length-delimited field with a one-byte key and `length` bytes of body. */
export const fieldBytes = (length: number): number => 1 + varintBytes(length) + length;

/**
 * Epoch milliseconds as OTLP's fixed64 nanoseconds, split in two 32-bit
 * halves: the seconds and nanoseconds are rounded as the SDK's HrTime is
 * (hrTime in points.ts), and the product is formed from 16-bit pieces of the
 * seconds so that every partial sum stays an exact double (nanoseconds since
 * 1970 pass 2^53 in 1970 + 104 days).
 */
export function nanosHalves(ms: number, into: Uint32Array): void {
  const seconds = Math.floor(ms / 1000);
  const nanos = Math.round((ms - seconds * 1000) * 1e6);
  secondsNanosHalves(seconds, nanos, into);
}

/** An HrTime ([seconds, nanoseconds]) as the two halves of its fixed64 nanoseconds. */
export function secondsNanosHalves(seconds: number, nanos: number, into: Uint32Array): void {
  const high16 = Math.floor(seconds / 0x10000);
  const low16 = seconds - high16 * 0x10000;
  // seconds * 1e9 = high16 * 1e9 * 2^16 + low16 * 1e9; each term < 2^53.
  const highTerm = high16 * 1e9;
  const highTermLow = (highTerm % 0x10000) * 0x10000;
  const highTermHigh = Math.floor(highTerm / 0x10000);
  const lowTerm = low16 * 1e9 + nanos;
  const lowTermLow = lowTerm % two32;
  const lowTermHigh = Math.floor(lowTerm / two32);
  const low = highTermLow + lowTermLow;
  into[0] = low % two32;
  into[1] = highTermHigh + lowTermHigh + Math.floor(low / two32);
}

/** A byte buffer written front to back, grown by doubling, kept between uses. */
export class ProtoWriter {
  buf: Buffer;
  pos = 0;

  constructor(initialBytes = 64 * 1024) {
    this.buf = Buffer.allocUnsafeSlow(initialBytes);
  }

  reset(): void {
    this.pos = 0;
  }

  /** Room for `bytes` more. */
  ensure(bytes: number): void {
    const need = this.pos + bytes;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const grown = Buffer.allocUnsafeSlow(size);
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }

  /** One byte (a key of a field below 16, or a small value) where the caller has ensured room. */
  byte(value: number): void {
    this.buf[this.pos++] = value;
  }

  /** One byte, room ensured here. */
  key(value: number): void {
    this.ensure(1);
    this.buf[this.pos++] = value;
  }

  varint(value: number): void {
    this.ensure(10);
    const buf = this.buf;
    let pos = this.pos;
    let rest = value;
    while (rest >= 0x80000000) {
      buf[pos++] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    let small = rest >>> 0;
    while (small >= 0x80) {
      buf[pos++] = (small & 0x7f) | 0x80;
      small >>>= 7;
    }
    buf[pos++] = small;
    this.pos = pos;
  }

  /** A negative whole number as int64's varint: its 64-bit two's complement, always 10 bytes (rare: by BigInt). */
  negativeVarint(value: number): void {
    this.ensure(10);
    let rest = BigInt.asUintN(64, BigInt(value));
    for (let i = 0; i < 9; i++) {
      this.buf[this.pos++] = Number(rest & 0x7fn) | 0x80;
      rest >>= 7n;
    }
    this.buf[this.pos++] = Number(rest);
  }

  /** Key of a field (any number). */
  tag(field: number, type: number): void {
    this.varint(tagOf(field, type));
  }

  fixed64(low: number, high: number): void {
    this.ensure(8);
    this.buf.writeUInt32LE(low >>> 0, this.pos);
    this.buf.writeUInt32LE(high >>> 0, this.pos + 4);
    this.pos += 8;
  }

  double(value: number): void {
    this.ensure(8);
    this.buf.writeDoubleLE(value, this.pos);
    this.pos += 8;
  }

  /** A UTF-8 string field's body with its length. */
  string(text: string): void {
    const length = Buffer.byteLength(text, "utf8");
    this.varint(length);
    this.ensure(length);
    this.pos += this.buf.write(text, this.pos, length, "utf8");
  }

  /** Bytes [from, to) of `source` as they are. */
  copy(source: Buffer, from: number, to: number): void {
    this.ensure(to - from);
    this.pos += source.copy(this.buf, this.pos, from, to);
  }

  /** A length-delimited field holding what `other` has written. */
  field(tag: number, other: ProtoWriter): void {
    this.varint(tag);
    this.varint(other.pos);
    this.copy(other.buf, 0, other.pos);
  }

  /** What has been written, as a view (valid until the next write or reset). */
  view(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}
