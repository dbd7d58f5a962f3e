// Shard ownership: FNV-1a 64 of the uid (vectors from Go's hash/fnv, which
// kube-apiserver's ShardedListAndWatch hashes with), then n contiguous equal
// ranges of the hash space, compared as the apiserver compares them, so a
// shard owns exactly what a shardSelector of its range lists.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import {
  fnv1a64,
  hexBound,
  inShardRange,
  mayGainObjects,
  ownsUid,
  shardOfUid,
  shardRange,
  shardSelectorOf,
} from "../../src/core/shard.ts";

const vectors: [string, string][] = [
  ["", "cbf29ce484222325"],
  ["a", "af63dc4c8601ec8c"],
  ["foobar", "85944171f73967e8"],
  ["0b6f2b3e-6c4e-4d8e-9a55-2f8f6f0e7c11", "a908f0c2c40f3889"],
  ["7f9c2ba4-e88f-4d0e-b3a6-0c2d9b0a1e55", "7623d5c502606618"],
  ["ünïcødé-uid", "df0c05a7eec2361b"],
  ["d3b07384-d113-4ec6-a3b4-2f6c1a9e8b01", "8f5b2c0a25c1f127"],
];

const hex = ([hi, lo]: [number, number]): string =>
  hi.toString(16).padStart(8, "0") + lo.toString(16).padStart(8, "0");

test("FNV-1a 64 agrees with Go's hash/fnv", () => {
  for (const [uid, hash] of vectors) assert.equal(hex(fnv1a64(uid)), hash, `fnv1a64(${JSON.stringify(uid)})`);
});

/** Go's sharding.HexLess: a shorter hex string is smaller, else they compare as text. */
const hexLess = (a: string, b: string): boolean => (a.length !== b.length ? a.length < b.length : a < b);

test("the range bounds in the apiserver's hex form: 2, 3 and 4 shards, and 2^64 as the last end", () => {
  const selectors = (total: number) =>
    Array.from({ length: total }, (_, shard) => {
      const { start, end } = shardRange({ shard, total });
      return [hexBound(start), hexBound(end)];
    });
  assert.deepEqual(selectors(2), [
    ["0x0000000000000000", "0x8000000000000000"],
    ["0x8000000000000000", "0x10000000000000000"],
  ]);
  assert.deepEqual(selectors(4), [
    ["0x0000000000000000", "0x4000000000000000"],
    ["0x4000000000000000", "0x8000000000000000"],
    ["0x8000000000000000", "0xc000000000000000"],
    ["0xc000000000000000", "0x10000000000000000"],
  ]);
  assert.deepEqual(selectors(3), [
    ["0x0000000000000000", "0x5555555555555556"],
    ["0x5555555555555556", "0xaaaaaaaaaaaaaaab"],
    ["0xaaaaaaaaaaaaaaab", "0x10000000000000000"],
  ]);
  assert.equal(
    shardSelectorOf({ shard: 1, total: 2 }),
    "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')",
  );
  assert.equal(shardSelectorOf({ shard: 0, total: 1 }), undefined, "unsharded: no selector");
  assert.equal(shardSelectorOf({ shard: 3, total: 3 }), undefined, "out of range: no selector");
});

test("a shard owns exactly the uids whose hash its selector's range holds, compared as the apiserver compares", () => {
  fc.assert(
    fc.property(fc.uuid(), fc.integer({ min: 2, max: 64 }), (uid, total) => {
      const hash = `0x${hex(fnv1a64(uid))}`;
      for (let shard = 0; shard < total; shard++) {
        const { start, end } = shardRange({ shard, total });
        const listed = !hexLess(hash, hexBound(start)) && hexLess(hash, hexBound(end));
        assert.equal(ownsUid({ shard, total }, uid), listed, `${uid} (${hash}) shard ${shard} of ${total}`);
      }
      const wide = (BigInt(hash) * BigInt(total)) >> 64n;
      assert.equal(shardOfUid(uid, total), Number(wide), "the shard is ⌊hash·total/2⁶⁴⌋");
    }),
    { numRuns: 2000 },
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

test("shards get about the same number of objects with random (v4) uids, as the apiserver makes them", () => {
  // A seeded generator, so the counts are the same on every run.
  let seed = 0x2545f491;
  const hex = (digits: number) =>
    Array.from({ length: digits }, () => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return (seed >>> 28).toString(16);
    }).join("");
  const counts = [0, 0, 0];
  for (let i = 0; i < 30_000; i++) {
    const uid = `${hex(8)}-${hex(4)}-4${hex(3)}-8${hex(3)}-${hex(12)}`;
    counts[shardOfUid(uid, 3)] = (counts[shardOfUid(uid, 3)] ?? 0) + 1;
  }
  for (const count of counts) assert.ok(count > 9_500 && count < 10_500, `counts ${counts.join(", ")}`);
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
  assert.equal(
    mayGainObjects({ shard: 0, total: 2 }, { shard: 0, total: 3 }),
    false,
    "scale up: shard 0 shrinks",
  );
  assert.equal(
    mayGainObjects({ shard: 1, total: 2 }, { shard: 1, total: 3 }),
    true,
    "scale up: shard 1 shifts down",
  );
  assert.equal(mayGainObjects({ shard: 1, total: 3 }, { shard: 1, total: 2 }), true, "scale down");
  assert.equal(mayGainObjects({ shard: 0, total: 3 }, { shard: 1, total: 3 }), true, "another shard");
  assert.equal(mayGainObjects({ shard: 3, total: 3 }, { shard: 3, total: 4 }), true, "back in range");
  assert.equal(mayGainObjects({ shard: 1, total: 3 }, { shard: 3, total: 3 }), false, "out of range");
  assert.equal(mayGainObjects({ shard: 1, total: 3 }, { shard: 1, total: 3 }), false, "unchanged: no relist");
});

test("a shard count that is not a positive integer is refused", () => {
  assert.throws(() => shardOfUid("x", 0), /positive integer \(got 0\)/);
  assert.throws(() => shardOfUid("x", 1.5), /positive integer/);
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

test("a negative shard owns nothing and gains nothing, and an unchanged assignment gains nothing", () => {
  assert.equal(ownsUid({ shard: -1, total: 1 }, "anything"), false);
  assert.equal(ownsUid({ shard: -1, total: 3 }, "anything"), false);
  assert.equal(mayGainObjects({ shard: 1, total: 3 }, { shard: -1, total: 3 }), false);
  assert.equal(mayGainObjects({ shard: -1, total: 3 }, { shard: 1, total: 3 }), true, "into range");
  assert.equal(mayGainObjects({ shard: 1, total: 3 }, { shard: 1, total: 3 }), false, "no change");
  assert.equal(mayGainObjects({ shard: 0, total: 1 }, { shard: 0, total: 1 }), false, "unsharded, no change");
});

test("a hash below a range's start in the same high half is not owned", () => {
  const range = shardRange({ shard: 1, total: 3 }); // start 0x5555555555555556
  assert.deepEqual(range.start, [0x5555_5555, 0x5555_5556]);
  assert.equal(inShardRange([0x5555_5555, 0x5555_5555], range), false, "one below the start");
  assert.equal(inShardRange([0x5555_5555, 0x5555_5556], range), true, "the start itself");
});

test("a shard's range is computed once and handed out again (the collectors ask at every event)", () => {
  assert.equal(shardRange({ shard: 2, total: 7 }), shardRange({ shard: 2, total: 7 }));
});
