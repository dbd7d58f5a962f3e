// The shard of a StatefulSet pod, followed as the StatefulSet scales: the
// shard is the pod's ordinal (from its name, `<statefulset>-<ordinal>`, which
// the StatefulSet controller guarantees, counted from spec.ordinals.start) and
// the number of shards is spec.replicas. The owning StatefulSet is named by
// the pod's name, so reading it needs list/watch on that one StatefulSet only
// (granted by resourceNames: the watch selects it by metadata.name), never
// the pods of the namespace.
import type { ShardAssignment } from "../core/shard.ts";
import type { Logger } from "../log.ts";
import type { KubeClient } from "./client.ts";
import { ListWatch, type ListWatchOptions } from "./list-watch.ts";

/** The StatefulSet's name and the ordinal in a pod name; undefined when it is not `<name>-<ordinal>`. */
export function parsePodName(pod: string): { statefulSet: string; ordinal: number } | undefined {
  const match = /^(.+)-(0|[1-9][0-9]*)$/.exec(pod);
  if (!match) return undefined;
  return { statefulSet: match[1] as string, ordinal: Number(match[2]) };
}

interface StatefulSetFields {
  metadata?: { name?: unknown };
  spec?: { replicas?: unknown; ordinals?: { start?: unknown } };
}

/** The assignment of the pod with `ordinal` in this StatefulSet, or what is wrong with the object. */
export function assignmentOf(raw: unknown, ordinal: number): ShardAssignment | string {
  const spec = (raw as StatefulSetFields | null)?.spec;
  // The apiserver defaults replicas to 1; a missing value is an object not from it.
  const replicas = spec?.replicas ?? 1;
  const start = spec?.ordinals?.start ?? 0;
  if (typeof replicas !== "number" || !Number.isInteger(replicas) || replicas < 0)
    return `spec.replicas is not a count: ${JSON.stringify(replicas)}`;
  if (typeof start !== "number" || !Number.isInteger(start) || start < 0)
    return `spec.ordinals.start is not an ordinal: ${JSON.stringify(start)}`;
  return { shard: ordinal - start, total: replicas };
}

export interface StatefulSetShardsOptions {
  client: KubeClient;
  pod: string;
  namespace: string;
  logger: Logger;
  /** Every later assignment that differs from the one before (not the first: start() returns it). */
  onChange: (next: ShardAssignment, previous: ShardAssignment) => void;
  /** How long start() waits for the StatefulSet through retryable failures (default 60 s). */
  startTimeoutMs?: number;
  /** Overrides for the watch (tests shorten timeouts). */
  listWatch?: Partial<ListWatchOptions>;
}

export class StatefulSetShards {
  readonly #options: StatefulSetShardsOptions;
  readonly #statefulSet: string;
  readonly #ordinal: number;
  #loop: ListWatch | undefined;
  #stopped: Promise<void> | undefined;
  #current: ShardAssignment | undefined;

  constructor(options: StatefulSetShardsOptions) {
    const parsed = parsePodName(options.pod);
    if (!parsed) {
      throw new Error(
        `sharding: pod name ${JSON.stringify(options.pod)} is not a StatefulSet pod's (<statefulset>-<ordinal>)`,
      );
    }
    this.#options = options;
    this.#statefulSet = parsed.statefulSet;
    this.#ordinal = parsed.ordinal;
  }

  /** namespace/name of the StatefulSet followed. */
  get statefulSet(): string {
    return `${this.#options.namespace}/${this.#statefulSet}`;
  }

  /**
   * Resolves with the first assignment, once the StatefulSet is read; keeps
   * following it afterwards. Rejects when it does not exist, may not be read
   * (401/403), or is not read within the start timeout.
   */
  // biome-ignore lint/complexity/noExcessiveLinesPerFunction: one promise settled by the first read, the timeout or a refusal: the guards must see each other
  start(): Promise<ShardAssignment> {
    const { client, namespace, logger } = this.#options;
    const what = `StatefulSet ${this.statefulSet} (of pod ${this.#options.pod})`;
    return new Promise<ShardAssignment>((resolve, reject) => {
      let settled = false;
      const fail = (message: string): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.#stopped = this.stop();
        reject(new Error(`sharding: ${message}`));
      };
      const timeoutMs = this.#options.startTimeoutMs ?? 60_000;
      const timer = setTimeout(() => fail(`${what} not read within ${timeoutMs / 1000} s`), timeoutMs);
      // Stryker disable next-line BooleanLiteral: listStarted() sets it before any list reads it
      let seen = false;
      const apply = (raw: unknown): void => {
        const next = assignmentOf(raw, this.#ordinal);
        if (typeof next === "string") {
          if (!settled) fail(`${what}: ${next}`);
          else logger.warn("StatefulSet ignored", { statefulSet: this.statefulSet, problem: next });
          return;
        }
        const previous = this.#current;
        this.#current = next;
        if (next.shard < 0 || next.shard >= next.total) {
          logger.warn("this pod's ordinal is outside the StatefulSet's replicas: it exports no objects", {
            statefulSet: this.statefulSet,
            pod: this.#options.pod,
            shard: next.shard,
            shards: next.total,
          });
        }
        if (!settled) {
          settled = true;
          clearTimeout(timer);
          resolve(next);
        } else if (previous && (previous.shard !== next.shard || previous.total !== next.total)) {
          this.#options.onChange(next, previous);
        }
      };
      this.#loop = new ListWatch(
        client,
        {
          listStarted: () => {
            seen = false;
          },
          listed: (raw) => {
            seen = true;
            apply(raw);
          },
          listFinished: () => {
            if (!seen && !settled) fail(`${what} not found`);
            else if (!seen) logger.warn("StatefulSet gone; keeping the last shard assignment", { what });
          },
          event: (type, raw) => {
            if (type === "DELETED")
              logger.warn("StatefulSet deleted; keeping the last shard assignment", { what });
            else apply(raw);
          },
        },
        {
          synced: () => {},
          relist: () => {},
          listDuration: () => {},
          watchEvent: () => {},
          error: (operation, code, error) => {
            const message = `${operation} ${what} failed${code ? ` (HTTP ${code})` : ""}: ${
              error instanceof Error ? error.message : String(error)
            }`;
            // Without the permission nothing will change by waiting.
            if (!settled && (code === 401 || code === 403)) fail(message);
            else logger.warn("cannot follow the StatefulSet", { error: message });
          },
          handlerError: (error) => logger.warn("StatefulSet event skipped", { error: String(error) }),
        },
        {
          path: `/apis/apps/v1/namespaces/${namespace}/statefulsets`,
          fieldSelector: `metadata.name=${this.#statefulSet}`,
          ...this.#options.listWatch,
        },
      );
      this.#loop.start();
    });
  }

  async stop(): Promise<void> {
    const loop = this.#loop;
    this.#loop = undefined;
    await Promise.all([loop?.stop(), this.#stopped]);
  }
}
