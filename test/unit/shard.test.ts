// Shard ownership: FNV-1a 64 of the uid, then jump consistent hashing. The
// vectors were computed with Go's hash/fnv and the published jump algorithm
// (the pair kube-state-metrics shards with), so a uid lands on the same shard
// number in both; a BigInt transcription of the algorithm checks the 32-bit
// arithmetic on random keys.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { fnv1a64, jumpHash, mayGainObjects, ownsUid, shardOfUid } from "../../src/core/shard.ts";

const vectors: [string, string, Record<number, number>][] = [
  ["", "cbf29ce484222325", { 1: 0, 2: 1, 3: 1, 5: 1, 10: 1, 100: 90, 1000: 266 }],
  ["a", "af63dc4c8601ec8c", { 1: 0, 2: 1, 3: 2, 5: 2, 10: 2, 100: 31, 1000: 163 }],
  ["foobar", "85944171f73967e8", { 1: 0, 2: 1, 3: 1, 5: 1, 10: 5, 100: 33, 1000: 635 }],
  [
    "0b6f2b3e-6c4e-4d8e-9a55-2f8f6f0e7c11",
    "a908f0c2c40f3889",
    { 1: 0, 2: 0, 3: 2, 5: 2, 10: 2, 100: 97, 1000: 486 },
  ],
  [
    "7f9c2ba4-e88f-4d0e-b3a6-0c2d9b0a1e55",
    "7623d5c502606618",
    { 1: 0, 2: 1, 3: 1, 5: 1, 10: 5, 100: 25, 1000: 764 },
  ],
  ["ünïcødé-uid", "df0c05a7eec2361b", { 1: 0, 2: 0, 3: 0, 5: 0, 10: 5, 100: 76, 1000: 112 }],
  [
    "d3b07384-d113-4ec6-a3b4-2f6c1a9e8b01",
    "8f5b2c0a25c1f127",
    { 1: 0, 2: 1, 3: 1, 5: 3, 10: 8, 100: 87, 1000: 955 },
  ],
];

const hex = ([hi, lo]: [number, number]): string =>
  hi.toString(16).padStart(8, "0") + lo.toString(16).padStart(8, "0");

test("FNV-1a 64 and jump hash agree with Go's hash/fnv and the published algorithm", () => {
  for (const [uid, hash, buckets] of vectors) {
    assert.equal(hex(fnv1a64(uid)), hash, `fnv1a64(${JSON.stringify(uid)})`);
    for (const [n, bucket] of Object.entries(buckets)) {
      assert.equal(jumpHash(fnv1a64(uid), Number(n)), bucket, `jump(${JSON.stringify(uid)}, ${n})`);
      assert.equal(shardOfUid(uid, Number(n)), bucket);
    }
  }
});

/** The algorithm as published, on BigInt: the reference for the 32-bit halves. */
function jumpReference(key: bigint, buckets: number): number {
  let b = -1n;
  let j = 0n;
  while (j < BigInt(buckets)) {
    b = j;
    key = BigInt.asUintN(64, key * 2862933555777941757n + 1n);
    j = BigInt(Math.floor(Number(b + 1n) * (2 ** 31 / Number((key >> 33n) + 1n))));
  }
  return Number(b);
}

test("the 32-bit jump hash equals the 64-bit reference on random keys and bucket counts", () => {
  fc.assert(
    fc.property(
      fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
      fc.integer({ min: 1, max: 5000 }),
      (key, buckets) => {
        const halves: [number, number] = [Number(key >> 32n), Number(key & 0xffffffffn)];
        assert.equal(jumpHash(halves, buckets), jumpReference(key, buckets));
      },
    ),
    { numRuns: 3000 },
  );
});

test("every uid is owned by exactly one of the shards, and a single shard owns everything", () => {
  fc.assert(
    fc.property(fc.uuid(), fc.integer({ min: 1, max: 16 }), (uid, total) => {
      const owners = Array.from({ length: total }, (_, shard) => shard).filter((shard) =>
        ownsUid({ shard, total }, uid),
      );
      assert.deepEqual(owners, [shardOfUid(uid, total)]);
      assert.equal(ownsUid({ shard: total, total }, uid), false, "a shard beyond the total owns nothing");
    }),
  );
  assert.equal(ownsUid({ shard: 0, total: 1 }, "anything"), true);
});

test("shards get about the same number of objects", () => {
  const counts = [0, 0, 0];
  for (let i = 0; i < 30_000; i++) {
    const uid = `00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`;
    counts[shardOfUid(uid, 3)] = (counts[shardOfUid(uid, 3)] ?? 0) + 1;
  }
  for (const count of counts) assert.ok(count > 9_500 && count < 10_500, `counts ${counts.join(", ")}`);
});

test("growing the number of shards only moves objects to the new shards", () => {
  fc.assert(
    fc.property(
      fc.uuid(),
      fc.integer({ min: 1, max: 20 }),
      fc.integer({ min: 0, max: 20 }),
      (uid, n, more) => {
        const before = shardOfUid(uid, n);
        const after = shardOfUid(uid, n + more);
        assert.ok(after === before || after >= n, `${uid}: ${before} of ${n} → ${after} of ${n + more}`);
      },
    ),
  );
});

test("mayGainObjects is true whenever a uid can become owned", () => {
  const assignment = fc
    .integer({ min: 1, max: 8 })
    .chain((total) => fc.record({ shard: fc.integer({ min: 0, max: total }), total: fc.constant(total) }));
  fc.assert(
    fc.property(fc.uuid(), assignment, assignment, (uid, previous, next) => {
      if (!ownsUid(previous, uid) && ownsUid(next, uid)) assert.ok(mayGainObjects(previous, next));
    }),
    { numRuns: 5000 },
  );
  assert.equal(mayGainObjects({ shard: 1, total: 2 }, { shard: 1, total: 3 }), false, "scale up");
  assert.equal(mayGainObjects({ shard: 1, total: 3 }, { shard: 1, total: 2 }), true, "scale down");
  assert.equal(mayGainObjects({ shard: 0, total: 3 }, { shard: 1, total: 3 }), true, "another shard");
  assert.equal(mayGainObjects({ shard: 3, total: 3 }, { shard: 3, total: 4 }), true, "back in range");
  assert.equal(mayGainObjects({ shard: 1, total: 3 }, { shard: 3, total: 3 }), false, "out of range");
  assert.equal(mayGainObjects({ shard: 1, total: 3 }, { shard: 1, total: 3 }), false, "unchanged: no relist");
});

test("a bucket count that is not a positive integer is refused", () => {
  assert.throws(() => jumpHash([0, 1], 0), /positive integer \(got 0\)/);
  assert.throws(() => jumpHash([0, 1], 1.5), /positive integer/);
});

/** FNV-1a 64 as published, on BigInt over the UTF-8 bytes: the reference for the 32-bit halves. */
function fnvReference(text: string): bigint {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text))
    hash = BigInt.asUintN(64, (hash ^ BigInt(byte)) * 0x100000001b3n);
  return hash;
}

test("FNV-1a 64 hashes the UTF-8 bytes of any text, all-ASCII or not", () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string({ unit: "grapheme-ascii" }),
        fc.string({ unit: "grapheme" }),
        fc.string({ unit: "binary" }),
      ),
      (text) => {
        const [hi, lo] = fnv1a64(text);
        assert.equal((BigInt(hi) << 32n) | BigInt(lo), fnvReference(text), JSON.stringify(text));
      },
    ),
    { numRuns: 2000 },
  );
  for (const text of ["\u007f", "ü", "üñ", "日本", "😀", "a\u0080"]) {
    const [hi, lo] = fnv1a64(text);
    assert.equal((BigInt(hi) << 32n) | BigInt(lo), fnvReference(text), JSON.stringify(text));
  }
});

test("the jump step carries from the low half into the high half", () => {
  // The key whose low half times the multiplier's low half ends in 0xffffffff: adding 1 carries.
  const stepLo = 0x87b0b0fdn;
  let inverse = 1n;
  for (let i = 0; i < 5; i++) inverse = BigInt.asUintN(32, inverse * (2n - stepLo * inverse));
  const lo = BigInt.asUintN(32, 0xffffffffn * inverse);
  for (const hi of [0n, 1n, 0x12345678n, 0xffffffffn]) {
    const key = (hi << 32n) | lo;
    for (const buckets of [2, 3, 10, 1000, 1 << 20]) {
      assert.equal(
        jumpHash([Number(hi), Number(lo)], buckets),
        jumpReference(key, buckets),
        `${key} ${buckets}`,
      );
    }
  }
});

test("a negative shard owns nothing and gains nothing, and an unchanged assignment gains nothing", () => {
  assert.equal(ownsUid({ shard: -1, total: 1 }, "anything"), false);
  assert.equal(ownsUid({ shard: -1, total: 3 }, "anything"), false);
  assert.equal(mayGainObjects({ shard: 1, total: 3 }, { shard: -1, total: 3 }), false);
  assert.equal(mayGainObjects({ shard: -1, total: 3 }, { shard: 1, total: 3 }), true, "into range");
  assert.equal(mayGainObjects({ shard: 1, total: 3 }, { shard: 1, total: 3 }), false, "no change");
  assert.equal(mayGainObjects({ shard: 0, total: 1 }, { shard: 0, total: 1 }), false, "unsharded, no change");
});
