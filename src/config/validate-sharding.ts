// Validation of `sharding`: a fixed shard (`shard` of `totalShards`), or the
// shard of a StatefulSet pod (`pod`, `podNamespace`: the ordinal from the pod
// name, the count from the StatefulSet's replicas).
import { Checker } from "./checker.ts";
import { custom } from "./option.ts";
import { dns1123 } from "./resource-fields.ts";

/**
 * Which objects this process keeps, renders and traces (off when undefined):
 * a fixed shard, or the shard of a StatefulSet pod (ordinal from the pod's
 * name, shard count from the StatefulSet's replicas, followed as it scales).
 */
export type ShardingConfig = (
  | { kind: "fixed"; shard: number; total: number }
  | { kind: "statefulset"; pod: string; podNamespace: string }
) & {
  /**
   * apiserver: list and watch with the shard's selector where the apiserver
   * offers it (ShardedListAndWatch), so it sends only this shard's objects;
   * exporter: always receive every object and keep this shard's.
   */
  filter: ShardFilter;
};

export const shardFilters = ["apiserver", "exporter"] as const;
export type ShardFilter = (typeof shardFilters)[number];

/** A StatefulSet pod's name: the StatefulSet's name, a dash, the ordinal. */
export const statefulSetPodName = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)-(0|[1-9][0-9]*)$/;

export function sharding(c: Checker, value: unknown): ShardingConfig | undefined {
  if (value === undefined) return undefined;
  const raw = c.object("sharding", value, ["shard", "totalShards", "pod", "podNamespace", "filter"]);
  if (!raw) return undefined;
  const filter = c.oneOf("sharding.filter", raw.filter, shardFilters) ?? "apiserver";
  const assigned = shardAssignment(c, raw, value);
  return assigned && { ...assigned, filter };
}

type Assigned =
  | { kind: "fixed"; shard: number; total: number }
  | { kind: "statefulset"; pod: string; podNamespace: string };

/** Which shard: a fixed one, or a StatefulSet pod's. */
function shardAssignment(c: Checker, raw: Record<string, unknown>, value: unknown): Assigned | undefined {
  const fixed = raw.shard !== undefined || raw.totalShards !== undefined;
  const fromPod = raw.pod !== undefined || raw.podNamespace !== undefined;
  if (fixed && fromPod) {
    return c.fail(
      "sharding",
      "either shard and totalShards (a fixed shard) or pod and podNamespace (a StatefulSet pod), not both",
      value,
    );
  }
  /** The key's value, or a problem naming the key it goes with when it is missing. */
  const required = (key: string, pairedWith: string, expected: string): unknown => {
    if (raw[key] !== undefined) return raw[key];
    c.problems.push(`sharding.${key}: missing; expected ${expected} (it goes with sharding.${pairedWith})`);
    return undefined;
  };
  if (fromPod) {
    const podText =
      "a StatefulSet pod's name such as cr-status-exporter-0 (the StatefulSet's name, a dash, the ordinal)";
    const pod = c.string(
      "sharding.pod",
      required("pod", "podNamespace", podText),
      statefulSetPodName,
      podText,
    );
    const podNamespace = c.string(
      "sharding.podNamespace",
      required("podNamespace", "pod", "the pod's namespace"),
      dns1123,
      "a namespace name",
    );
    return pod && podNamespace ? { kind: "statefulset", pod, podNamespace } : undefined;
  }
  if (!fixed) return c.fail("sharding", "shard and totalShards, or pod and podNamespace", value);
  const total = c.integer(
    "sharding.totalShards",
    required("totalShards", "shard", "the number of shards, an integer ≥ 1"),
    1,
  );
  const shard = c.integer(
    "sharding.shard",
    required("shard", "totalShards", "this shard, an integer ≥ 0"),
    0,
  );
  if (total === undefined || shard === undefined) return undefined;
  if (shard >= total) {
    return c.fail(
      "sharding.shard",
      `an integer from 0 to ${total - 1} (below totalShards, ${total})`,
      raw.shard,
    );
  }
  return { kind: "fixed", shard, total };
}

export const shardingOption = custom<ShardingConfig | undefined>({
  key: "sharding",
  doc: "Keep, export and trace only the objects whose uid hashes to one shard: a fixed one (shard of totalShards), or a StatefulSet pod's (pod, podNamespace: its ordinal of the StatefulSet's replicas, followed as it scales); filter: apiserver (default: the apiserver sends only the shard's objects where it offers ShardedListAndWatch) or exporter (every object is received, the shard's kept). Off unless given.",
  default: undefined,
  shown: "",
  schema: (Type) => {
    const filterSchema = Type.Optional(Type.Union(shardFilters.map((f) => Type.Literal(f))));
    const count = (minimum: number) => Type.Integer({ minimum, maximum: Checker.maxInteger });
    return Type.Union([
      Type.Object(
        { shard: count(0), totalShards: count(1), filter: filterSchema },
        { additionalProperties: false },
      ),
      Type.Object(
        {
          pod: Type.String({ pattern: statefulSetPodName.source }),
          podNamespace: Type.String({ pattern: dns1123.source }),
          filter: filterSchema,
        },
        { additionalProperties: false },
      ),
    ]);
  },
  read: (c, _path, value) => sharding(c, value),
});
