// A minimal DER (ITU-T X.690) encoder: only the types an X.509 v3 certificate
// needs (RFC 5280). Node can generate keys and sign, but not build a
// certificate; this is the small part in between.

/** One encoded value: tag, length and contents. */
export type Der = Buffer;

function encodeLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export function tlv(tag: number, contents: Uint8Array): Der {
  return Buffer.concat([Buffer.from([tag]), encodeLength(contents.length), contents]);
}

export function sequence(...items: Der[]): Der {
  return tlv(0x30, Buffer.concat(items));
}

export function set(...items: Der[]): Der {
  return tlv(0x31, Buffer.concat(items));
}

export function boolean(value: boolean): Der {
  return tlv(0x01, Buffer.from([value ? 0xff : 0x00]));
}

/** A non-negative INTEGER from its big-endian magnitude (or a small number). */
export function integer(value: Uint8Array | number): Der {
  let bytes: Buffer;
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`integer: ${value} is not supported`);
    const digits: number[] = [];
    for (let rest = value; rest > 0; rest = Math.floor(rest / 256)) digits.unshift(rest % 256);
    bytes = Buffer.from(digits);
  } else {
    bytes = Buffer.from(value);
  }
  // Leading zeros go (bytes[length] is undefined, so the loop ends); zero itself is then one 0x00.
  let start = 0;
  while (bytes[start] === 0) start++;
  bytes = bytes.subarray(start);
  if (bytes.length === 0) bytes = Buffer.from([0]);
  // The top bit is the sign: a magnitude starting with it set gets a 0x00 in front.
  if ((bytes[0] ?? 0) & 0x80) bytes = Buffer.concat([Buffer.from([0]), bytes]);
  return tlv(0x02, bytes);
}

export function objectIdentifier(dotted: string): Der {
  const arcs = dotted.split(".").map(Number);
  const [first, second, ...rest] = arcs;
  if (
    first === undefined ||
    second === undefined ||
    arcs.some((arc) => !Number.isSafeInteger(arc) || arc < 0) ||
    first > 2 ||
    (first < 2 && second > 39)
  ) {
    throw new RangeError(`objectIdentifier: ${JSON.stringify(dotted)} is not a valid OID`);
  }
  const bytes: number[] = [];
  for (const arc of [first * 40 + second, ...rest]) {
    const base128 = [arc % 128];
    for (let high = Math.floor(arc / 128); high > 0; high = Math.floor(high / 128)) {
      base128.unshift(0x80 | (high % 128));
    }
    bytes.push(...base128);
  }
  return tlv(0x06, Buffer.from(bytes));
}

export function octetString(bytes: Uint8Array): Der {
  return tlv(0x04, bytes);
}

/** A BIT STRING of whole bytes whose last `unusedBits` bits are padding. */
export function bitString(bytes: Uint8Array, unusedBits = 0): Der {
  return tlv(0x03, Buffer.concat([Buffer.from([unusedBits]), bytes]));
}

export function utf8String(text: string): Der {
  return tlv(0x0c, Buffer.from(text, "utf8"));
}

/** UTCTime for 1950–2049 and GeneralizedTime otherwise, as RFC 5280 §4.1.2.5 requires; whole seconds, UTC. */
export function time(date: Date): Der {
  const iso = date.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const digits = iso.slice(0, 19).replace(/[-:T]/g, "");
  const year = date.getUTCFullYear();
  if (year >= 1950 && year < 2050) return tlv(0x17, Buffer.from(`${digits.slice(2)}Z`, "ascii"));
  return tlv(0x18, Buffer.from(`${digits}Z`, "ascii"));
}

/** [n] EXPLICIT: the value wrapped in a constructed context-specific tag. */
export function explicit(tagNumber: number, inner: Der): Der {
  return tlv(0xa0 | tagNumber, inner);
}

/** [n] IMPLICIT of a primitive type: the contents under a context-specific tag. */
export function implicitPrimitive(tagNumber: number, contents: Uint8Array): Der {
  return tlv(0x80 | tagNumber, contents);
}
