// Which shard owns an object: FNV-1a 64 of the object's uid, placed into one
// of `total` buckets by jump consistent hashing (Lamping & Veach, 2014), the
// scheme kube-state-metrics uses, so an object lands on the same shard number
// in both. Jump hashing moves as few objects as possible when the number of
// shards changes: growing from n to m shards only moves objects to the new
// shards n…m−1, never between the old ones. Every component that asks "is this
// object ours?" calls ownsUid(); nothing else hashes uids for sharding.
//
// 64-bit arithmetic is done on two 32-bit halves (no BigInt): every watch event
// of every shard is hashed, so this runs once per object per event.

/**
 * This process's part of the objects: shard `shard` of `total`. A shard out of
 * [0, total) owns nothing (a StatefulSet pod beyond the replicas, while it stops).
 */
export interface ShardAssignment {
  readonly shard: number;
  readonly total: number;
}

export const unsharded: ShardAssignment = { shard: 0, total: 1 };

const two32 = 0x1_0000_0000;

/** a × b for 32-bit unsigned a and b, as the high and low 32-bit halves of the 64-bit product. */
function mul32(a: number, b: number): { hi: number; lo: number } {
  const a0 = a & 0xffff;
  const a1 = a >>> 16;
  const b0 = b & 0xffff;
  const b1 = b >>> 16;
  const low = a0 * b0;
  const mid = a1 * b0 + a0 * b1; // < 2^33: exact in a double
  const lo = low + (mid % 0x1_0000) * 0x1_0000;
  const hi = a1 * b1 + Math.floor(mid / 0x1_0000) + Math.floor(lo / two32);
  return { hi: hi >>> 0, lo: lo >>> 0 };
}

/** Undefined when every character is 7-bit (uids are RFC 4122 text): then the string is hashed as is, without a copy. */
function utf8Unless7Bit(text: string): Uint8Array | undefined {
  return /[\u0080-\uffff]/.test(text) ? new TextEncoder().encode(text) : undefined;
}

/** FNV-1a 64 of the UTF-8 bytes of `text`, as [high, low] 32-bit halves. */
export function fnv1a64(text: string): [number, number] {
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  const bytes = utf8Unless7Bit(text);
  const length = bytes ? bytes.length : text.length;
  for (let i = 0; i < length; i++) {
    lo = (lo ^ (bytes ? (bytes[i] as number) : text.charCodeAt(i))) >>> 0;
    // × 0x100000001b3 = × 0x1b3 + (× 1 << 40), modulo 2^64.
    const product = lo * 0x1b3; // < 2^41: exact
    const carry = Math.floor(product / two32);
    hi = (Math.imul(hi, 0x1b3) + carry + (lo << 8)) >>> 0;
    lo = product >>> 0;
  }
  return [hi, lo];
}

// The linear congruential step of jump hashing: key × 2862933555777941757 + 1 (mod 2^64).
const stepHi = 0x27bb2ee6;
const stepLo = 0x87b0b0fd;

/** The bucket in [0, buckets) of a 64-bit key given as [high, low] halves. */
export function jumpHash(key: readonly [number, number], buckets: number): number {
  if (!Number.isInteger(buckets) || buckets < 1) {
    throw new RangeError(`jump hash: buckets must be a positive integer (got ${buckets})`);
  }
  let [hi, lo] = key;
  // The loop runs at least once (buckets ≥ 1), so b is always set by it.
  let b = 0;
  let j = 0;
  while (j < buckets) {
    b = j;
    const low = mul32(lo, stepLo);
    const nextHi = (low.hi + Math.imul(hi, stepLo) + Math.imul(lo, stepHi)) >>> 0;
    const nextLo = low.lo + 1;
    lo = nextLo >>> 0;
    hi = nextLo >= two32 ? (nextHi + 1) >>> 0 : nextHi;
    // (key >> 33) + 1 is the high half shifted by one, plus one.
    // In this order (divide, then multiply) as the published algorithm does, so
    // the float rounding, and hence the bucket, is the same as everywhere else.
    j = Math.floor((b + 1) * (2 ** 31 / ((hi >>> 1) + 1)));
  }
  return b;
}

/** The shard (0 ≤ shard < total) of the object with this uid. */
export function shardOfUid(uid: string, total: number): number {
  return jumpHash(fnv1a64(uid), total);
}

/** False when the assignment owns nothing (its shard is out of [0, total)). */
export function inRange(assignment: ShardAssignment): boolean {
  return assignment.shard >= 0 && assignment.shard < assignment.total;
}

/** True when the object with this uid belongs to `assignment`. */
export function ownsUid(assignment: ShardAssignment, uid: string): boolean {
  if (!inRange(assignment)) return false;
  // One shard owns everything: no hashing on every event of an unsharded exporter.
  return assignment.total === 1 || shardOfUid(uid, assignment.total) === assignment.shard;
}

/**
 * Whether moving from `previous` to `next` can give this process objects it
 * did not own (so it must list them again). With the same shard and at least
 * as many shards, jump hashing only takes objects away.
 */
export function mayGainObjects(previous: ShardAssignment, next: ShardAssignment): boolean {
  if (!inRange(next)) return false;
  if (!inRange(previous)) return true;
  return !(next.shard === previous.shard && next.total >= previous.total);
}
