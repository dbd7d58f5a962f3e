// The DER encoder's edges that the certificates do not reach every day: the
// tags of each type, lengths of more than one byte, numbers it refuses, OIDs
// it refuses or encodes in several base-128 digits, and the 1950 boundary of
// UTCTime.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  bitString,
  boolean,
  explicit,
  implicitPrimitive,
  integer,
  objectIdentifier,
  octetString,
  sequence,
  set,
  time,
  tlv,
  utf8String,
} from "../../src/server/der.ts";

const hex = (buffer: Buffer): string => buffer.toString("hex");

test("each type's tag, and the contents as given", () => {
  assert.equal(hex(boolean(true)), "0101ff");
  assert.equal(hex(boolean(false)), "010100");
  assert.equal(hex(octetString(Buffer.from([1, 2]))), "04020102");
  assert.equal(hex(utf8String("é")), "0c02c3a9");
  assert.equal(hex(bitString(Buffer.from([0xab]))), "030200ab");
  assert.equal(hex(sequence(boolean(true), integer(1))), "30060101ff020101");
  assert.equal(hex(sequence()), "3000");
  assert.equal(hex(set(integer(1), integer(2))), "3106020101020102");
  assert.equal(hex(explicit(3, integer(2))), "a303020102");
  assert.equal(hex(implicitPrimitive(7, Buffer.from([127, 0, 0, 1]))), "87047f000001");
});

test("lengths: one byte to 127, then 0x81 and 0x82 forms with the length's bytes", () => {
  assert.equal(hex(tlv(0x04, Buffer.alloc(255))).slice(0, 6), "0481ff");
  assert.equal(hex(tlv(0x04, Buffer.alloc(256))).slice(0, 8), "04820100");
  assert.equal(tlv(0x04, Buffer.alloc(256)).length, 4 + 256);
  assert.equal(hex(tlv(0x04, Buffer.alloc(65_536))).slice(0, 10), "0483010000");
});

test("integers: several bytes big-endian, only non-negative safe numbers", () => {
  assert.equal(hex(integer(0x012345)), "0203012345");
  assert.equal(hex(integer(Buffer.alloc(0))), "020100");
  assert.equal(hex(integer(Buffer.from([0, 0]))), "020100");
  assert.equal(hex(integer(Buffer.from([0, 0x80]))), "02020080");
  for (const value of [-1, 0.5, 2 ** 53]) assert.throws(() => integer(value), /integer: .* is not supported/);
});

test("object identifiers: multi-digit arcs, the 2.x arcs above 39, and what is refused", () => {
  assert.equal(hex(objectIdentifier("1.2.840.113549")), "06062a864886f70d");
  assert.equal(hex(objectIdentifier("2.999.3")), "0603883703");
  assert.equal(hex(objectIdentifier("0.39")), "060127");
  assert.equal(hex(objectIdentifier("2.5.4.3")), "0603550403");
  assert.equal(hex(objectIdentifier("1.2.16384")), "06042a818000");
  for (const bad of ["1", "", "3.1", "0.40", "1.2.-3", "1.2.x"]) {
    assert.throws(() => objectIdentifier(bad), /objectIdentifier: .* is not a valid OID/, bad);
  }
});

test("times: UTCTime from 1950, GeneralizedTime before it; whole seconds", () => {
  const utc = time(new Date("1950-01-01T00:00:00Z"));
  assert.equal(utc[0], 0x17);
  assert.equal(utc.toString("latin1").slice(2), "500101000000Z");
  const before = time(new Date("1949-12-31T23:59:59Z"));
  assert.equal(before[0], 0x18);
  assert.equal(before.toString("latin1").slice(2), "19491231235959Z");
  assert.equal(hex(time(new Date("2026-06-01T12:34:56.789Z")).subarray(0, 2)), "170d");
});
