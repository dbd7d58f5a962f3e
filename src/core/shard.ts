// Which shard owns an object: FNV-1a 64 of the object's uid, and shard s of
// n owns the hashes in [⌈s·2⁶⁴/n⌉, ⌈(s+1)·2⁶⁴/n⌉): n contiguous, equal ranges,
// the scheme of kube-apiserver's ShardedListAndWatch (shardRange over
// object.metadata.uid), so the apiserver can send a shard only its own objects
// (shardSelectorOf) and a shard owns the same objects whether the apiserver
// filters or the exporter does. Re-sharding from n to m shards moves about
// half of the objects (ranges shift), where kube-state-metrics' jump hash
// moves |m−n|/max(m,n): a re-shard relists (docs/install.md). Every component
// that asks "is this object ours?" calls ownsUid(); nothing else hashes uids.
//
// 64-bit arithmetic is done on two 32-bit halves (no BigInt per event): every
// watch event of every shard is hashed, so this runs once per object per event.

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

/** A 64-bit value as [high, low] 32-bit halves; `end` 2^64 is [0x1_0000_0000, 0]. */
type Halves = readonly [number, number];

const two64 = 1n << 64n;

/**
 * ⌈shard·2⁶⁴/total⌉ as halves (total ≥ 1, 0 ≤ shard ≤ total): with the
 * ceiling, the shard of a hash h is exactly ⌊h·total/2⁶⁴⌋ (see shardOfUid).
 */
function bound(shard: number, total: number): Halves {
  const value = (BigInt(shard) * two64 + BigInt(total) - 1n) / BigInt(total);
  return [Number(value >> 32n), Number(value & 0xffff_ffffn)];
}

/** The hashes shard `shard` of `total` owns: [start, end), end up to 2^64. */
export interface ShardRange {
  start: Halves;
  end: Halves;
}

const rangeCache = new Map<string, ShardRange>();

/** The range of an assignment in range (cached: the collectors ask at every event). */
export function shardRange(assignment: ShardAssignment): ShardRange {
  const key = `${assignment.shard}/${assignment.total}`;
  let range = rangeCache.get(key);
  if (!range) {
    range = {
      start: bound(assignment.shard, assignment.total),
      end: bound(assignment.shard + 1, assignment.total),
    };
    rangeCache.set(key, range);
  }
  return range;
}

const below = (a: Halves, b: Halves): boolean => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);

/** Whether the hash lies in the range. */
export function inShardRange(hash: Halves, range: ShardRange): boolean {
  return !below(hash, range.start) && below(hash, range.end);
}

/**
 * The apiserver's form of a bound: '0x' and 16 lower-case hex digits; 2^64
 * (hi = 2^32, lo = 0) comes out as 0x10000000000000000, the form it expects.
 */
export function hexBound([hi, lo]: Halves): string {
  return `0x${hi.toString(16).padStart(8, "0")}${lo.toString(16).padStart(8, "0")}`;
}

/**
 * The list/watch `shardSelector` that asks the apiserver for this shard's
 * objects only; undefined unsharded (one shard takes everything) or out of range.
 */
export function shardSelectorOf(assignment: ShardAssignment): string | undefined {
  if (assignment.total <= 1 || !inRange(assignment)) return undefined;
  const { start, end } = shardRange(assignment);
  return `shardRange(object.metadata.uid, '${hexBound(start)}', '${hexBound(end)}')`;
}

/** The shard (0 ≤ shard < total) of the object with this uid. */
export function shardOfUid(uid: string, total: number): number {
  if (!Number.isInteger(total) || total < 1) {
    throw new RangeError(`shards: the total must be a positive integer (got ${total})`);
  }
  const [hi, lo] = fnv1a64(uid);
  return Number((((BigInt(hi) << 32n) | BigInt(lo)) * BigInt(total)) >> 64n);
}

/** False when the assignment owns nothing (its shard is out of [0, total)). */
export function inRange(assignment: ShardAssignment): boolean {
  return assignment.shard >= 0 && assignment.shard < assignment.total;
}

/** True when the object with this uid belongs to `assignment`. */
export function ownsUid(assignment: ShardAssignment, uid: string): boolean {
  if (!inRange(assignment)) return false;
  // One shard owns everything: no hashing on every event of an unsharded exporter.
  return assignment.total === 1 || inShardRange(fnv1a64(uid), shardRange(assignment));
}

/**
 * Whether moving from `previous` to `next` can give this process objects it
 * did not own (so it must list them again): the new range is not inside the old.
 */
export function mayGainObjects(previous: ShardAssignment, next: ShardAssignment): boolean {
  if (!inRange(next)) return false;
  if (!inRange(previous)) return true;
  const before = shardRange(previous);
  const after = shardRange(next);
  return below(after.start, before.start) || below(before.end, after.end);
}
