// Sharding as a part of the app: which objects this process keeps, renders
// and traces. A fixed shard comes from the configuration; a StatefulSet pod's
// shard is read from its StatefulSet before the collectors start, and
// followed as it scales: each new assignment is handed to the listeners (the
// collectors re-shard without a restart). cr_exporter_shards says which
// shard this is and of how many, so a missing shard can be alerted on.
import type { Config, ShardingConfig } from "../config/schema.ts";
import { ownsUid, type ShardAssignment, shardSelectorOf, unsharded } from "../core/shard.ts";
import type { KubeClient } from "../kube/client.ts";
import type { ListWatchOptions } from "../kube/list-watch.ts";
import { StatefulSetShards } from "../kube/statefulset-shards.ts";
import type { Logger } from "../log.ts";
import type { SelfMetrics } from "../metrics/self-metrics.ts";
import { type Component, changed } from "./component.ts";

export type ShardListener = (next: ShardAssignment, previous: ShardAssignment) => void;

export interface Sharding extends Component {
  readonly assignment: ShardAssignment;
  /** Whether the object with this uid is this process's; the collectors ask at every event. */
  owns(uid: string): boolean;
  /** The selector that asks the apiserver for this shard's objects only (undefined: unsharded, or filter: exporter). */
  shardSelector(): string | undefined;
  /** Called with every assignment after the first (a StatefulSet that scales). */
  onChange(listener: ShardListener): void;
}

export interface ShardingDeps {
  client: KubeClient;
  metrics: Pick<SelfMetrics, "shards">;
  logger: Logger;
  /** Overrides for the StatefulSet watch (tests shorten timeouts). */
  listWatch?: Partial<ListWatchOptions>;
}

function initialAssignment(sharding: ShardingConfig | undefined): ShardAssignment {
  return sharding?.kind === "fixed" ? { shard: sharding.shard, total: sharding.total } : unsharded;
}

export function buildSharding(config: Config, deps: ShardingDeps): Sharding {
  const { logger, metrics } = deps;
  const listeners: ShardListener[] = [];
  // Before a StatefulSet is read, nothing is this process's (the collectors start after it is).
  let current: ShardAssignment =
    config.sharding?.kind === "statefulset" ? { shard: 0, total: 0 } : initialAssignment(config.sharding);
  let follower: StatefulSetShards | undefined;
  const show = (assignment: ShardAssignment): void => {
    metrics.shards.reset();
    metrics.shards.set({ shard: String(assignment.shard) }, assignment.total);
  };
  return {
    name: "sharding",
    get assignment() {
      return current;
    },
    owns: (uid) => ownsUid(current, uid),
    shardSelector: () => (config.sharding?.filter === "apiserver" ? shardSelectorOf(current) : undefined),
    onChange(listener) {
      listeners.push(listener);
    },
    async start() {
      const sharding = config.sharding;
      if (sharding?.kind === "statefulset") {
        follower = new StatefulSetShards({
          client: deps.client,
          pod: sharding.pod,
          namespace: sharding.podNamespace,
          logger,
          listWatch: deps.listWatch,
          onChange: (next, previous) => {
            current = next;
            show(next);
            logger.info("shard assignment changed", {
              shard: next.shard,
              shards: next.total,
              previousShards: previous.total,
            });
            for (const listener of listeners) listener(next, previous);
          },
        });
        current = await follower.start();
      }
      show(current);
      if (sharding) {
        logger.info("sharding", {
          shard: current.shard,
          shards: current.total,
          hash: "fnv1a64(uid) in equal ranges",
          filter: sharding.filter,
          from: sharding.kind === "statefulset" ? `StatefulSet ${follower?.statefulSet}` : "configuration",
        });
      }
    },
    async reload(next, previous) {
      if (changed(next, previous, (c) => c.sharding)) {
        logger.warn("sharding changes take effect after a restart");
      }
    },
    async stop() {
      await follower?.stop();
    },
  };
}
