// Leader election on a coordination.k8s.io/v1 Lease, so that only one replica
// exports spans. The algorithm is the usual one: read the Lease; take it when
// it is free, ours, or its holder has not renewed it within its duration; write
// with the read resourceVersion so two candidates never both win. Expiry is
// judged by this process's clock from when the record last changed, never by
// the holder's timestamps, so clock skew between replicas does not matter.
import type { Logger } from "../log.ts";
import type { KubeClient } from "./client.ts";

export interface LeaseElectorOptions {
  /** The Kubernetes client's request function (GET, POST and PUT on one Lease). */
  request: KubeClient["request"];
  namespace: string;
  name: string;
  /** Unique per replica, e.g. the pod name. */
  identity: string;
  /** How long a Lease stays held without renewal (default 15 s; whole seconds on the wire). */
  leaseDurationMs?: number;
  /** A leader that could not renew for this long stops leading (default 10 s; must be < leaseDurationMs). */
  renewDeadlineMs?: number;
  /** Time between attempts (default 2 s). */
  retryPeriodMs?: number;
  logger: Logger;
  /** Epoch milliseconds; default: the wall clock. */
  nowMs?: () => number;
  onChange?: (leading: boolean) => void;
}

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

interface Lease {
  metadata?: { resourceVersion?: string };
  spec?: LeaseSpec;
}

type Response = Awaited<ReturnType<KubeClient["request"]>>;

/** metav1.MicroTime: RFC 3339 with microseconds. */
export function microTime(epochMs: number): string {
  // toISOString() always ends in ".sssZ": three more digits make microseconds.
  return `${new Date(epochMs).toISOString().slice(0, -1)}000Z`;
}

/** A coordination.k8s.io/v1 Lease; with a resourceVersion, an update that fails on a concurrent write. */
export function leaseBody(
  namespace: string,
  name: string,
  resourceVersion: string | undefined,
  spec: LeaseSpec,
): Lease & { apiVersion: string; kind: string } {
  const metadata: Record<string, string> = { name, namespace };
  if (resourceVersion !== undefined) metadata.resourceVersion = resourceVersion;
  return { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata, spec };
}

export class LeaseElector {
  readonly #options: Required<Omit<LeaseElectorOptions, "onChange">>;
  readonly #onChange: ((leading: boolean) => void) | undefined;
  readonly #path: string;
  #leading = false;
  #lastRenewAt = 0;
  /** The holder record last seen and when (our clock) it was first seen. */
  #observed: { key: string; at: number } | undefined;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  // Stryker disable next-line BooleanLiteral: start() sets it before any round reads it
  #stopped = false;

  constructor(options: LeaseElectorOptions) {
    const leaseDurationMs = options.leaseDurationMs ?? 15_000;
    const renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    const retryPeriodMs = options.retryPeriodMs ?? 2_000;
    if (leaseDurationMs < 1000) {
      throw new Error(`leader election: leaseDurationMs must be at least 1000 (got ${leaseDurationMs})`);
    }
    if (renewDeadlineMs >= leaseDurationMs) {
      throw new Error(
        `leader election: renewDeadlineMs (${renewDeadlineMs}) must be less than leaseDurationMs (${leaseDurationMs})`,
      );
    }
    if (retryPeriodMs <= 0 || retryPeriodMs >= renewDeadlineMs) {
      throw new Error(
        `leader election: retryPeriodMs (${retryPeriodMs}) must be positive and less than renewDeadlineMs (${renewDeadlineMs})`,
      );
    }
    if (!options.identity) throw new Error('leader election: identity must be non-empty (got "")');
    this.#options = {
      request: options.request,
      namespace: options.namespace,
      name: options.name,
      identity: options.identity,
      leaseDurationMs,
      renewDeadlineMs,
      retryPeriodMs,
      logger: options.logger,
      nowMs: options.nowMs ?? Date.now,
    };
    this.#onChange = options.onChange;
    this.#path = `/apis/coordination.k8s.io/v1/namespaces/${options.namespace}/leases/${options.name}`;
  }

  isLeader(): boolean {
    return this.#leading;
  }

  /** Starts trying to acquire, then renewing, every retry period until stop(). */
  start(): void {
    if (this.#timer || this.#running) return;
    this.#stopped = false;
    const loop = async (): Promise<void> => {
      this.#running = this.tryAcquireOrRenew().then(
        () => undefined,
        () => undefined,
      );
      await this.#running;
      this.#running = undefined;
      if (!this.#stopped) this.#timer = setTimeout(loop, this.#options.retryPeriodMs);
    };
    void loop();
  }

  /** Stops, and hands the Lease back if held so another replica takes over at once. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
    if (this.#leading) await this.#release();
  }

  /** Stops without releasing, as a crashed replica would: the Lease expires on its own. */
  async abandon(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
    this.#setLeading(false);
  }

  /** One attempt; resolves with whether this replica leads afterwards. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const { request, identity, leaseDurationMs, logger, namespace, name } = this.#options;
    const now = this.#options.nowMs();
    try {
      const got = await request("GET", this.#path);
      if (got.status === 404) {
        const body = leaseBody(namespace, name, undefined, this.#spec(now, undefined));
        const created = await request("POST", this.#collectionPath(), { body });
        return this.#settle(created.status === 201 || created.status === 200, now, created);
      }
      if (got.status !== 200) return this.#settle(false, now, got);
      const lease = got.body as Lease;
      const spec = lease.spec ?? {};
      const resourceVersion = lease.metadata?.resourceVersion;
      // The record as last written; JSON keeps an absent field apart from any string.
      const key = JSON.stringify([spec.holderIdentity, spec.renewTime, resourceVersion]);
      let observed = this.#observed;
      if (observed?.key !== key) observed = this.#observed = { key, at: now };
      const holder = spec.holderIdentity ?? "";
      const duration = (spec.leaseDurationSeconds ?? Math.ceil(leaseDurationMs / 1000)) * 1000;
      if (holder !== "" && holder !== identity && now < observed.at + duration) {
        this.#setLeading(false);
        return false;
      }
      const body = leaseBody(namespace, name, resourceVersion, this.#spec(now, spec));
      const updated = await request("PUT", this.#path, { body });
      return this.#settle(updated.status === 200, now, updated);
    } catch (error) {
      logger.warn("leader election: request failed", { error, lease: this.#path });
      return this.#settle(false, now, undefined);
    }
  }

  #collectionPath(): string {
    return `/apis/coordination.k8s.io/v1/namespaces/${this.#options.namespace}/leases`;
  }

  #spec(now: number, previous: LeaseSpec | undefined): LeaseSpec {
    const { identity, leaseDurationMs } = this.#options;
    const ours = previous !== undefined && previous.holderIdentity === identity;
    return {
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil(leaseDurationMs / 1000),
      acquireTime: ours && previous.acquireTime ? previous.acquireTime : microTime(now),
      renewTime: microTime(now),
      leaseTransitions: (previous?.leaseTransitions ?? 0) + (previous && !ours ? 1 : 0),
    };
  }

  /** Records the outcome of an attempt: a win renews; a failure ends leadership once the renew deadline passes. */
  #settle(won: boolean, now: number, response: Response | undefined): boolean {
    if (won) {
      this.#lastRenewAt = now;
      this.#setLeading(true);
      return true;
    }
    // A lost round never carries a 200 (a 200 read goes on to a write; a 200 write wins).
    if (response && response.status !== 409) {
      this.#options.logger.warn("leader election: unexpected answer", {
        status: response.status,
        lease: this.#path,
      });
    }
    if (this.#leading && now - this.#lastRenewAt >= this.#options.renewDeadlineMs) this.#setLeading(false);
    return this.#leading;
  }

  async #release(): Promise<void> {
    const { request, identity, logger, namespace, name } = this.#options;
    try {
      const got = await request("GET", this.#path);
      const lease = got.body as Lease;
      if (got.status === 200 && lease.spec?.holderIdentity === identity) {
        const spec = {
          ...lease.spec,
          holderIdentity: "",
          leaseDurationSeconds: 1,
          renewTime: microTime(this.#options.nowMs()),
        };
        await request("PUT", this.#path, {
          body: leaseBody(namespace, name, lease.metadata?.resourceVersion, spec),
        });
      }
    } catch (error) {
      logger.warn("leader election: could not release the lease", { error, lease: this.#path });
    } finally {
      this.#setLeading(false);
    }
  }

  #setLeading(leading: boolean): void {
    if (leading === this.#leading) return;
    this.#leading = leading;
    this.#options.logger.info(leading ? "leading" : "not leading", {
      identity: this.#options.identity,
      lease: `${this.#options.namespace}/${this.#options.name}`,
    });
    this.#onChange?.(leading);
  }
}
