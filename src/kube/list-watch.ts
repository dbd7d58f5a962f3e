// The list/watch loop for one collection. Paginated LIST, then WATCH with
// bookmarks and a jittered server-side timeout, resuming from the last
// resourceVersion; an inactivity watchdog for half-open connections; relist
// when the resourceVersion expired (410 Gone); backoff with jitter after every
// error. Objects are handed to the handler one at a time and never kept here;
// a list page is handed over in slices of a few milliseconds with a turn of
// the event loop between them, so a page of large objects never holds up a
// scrape that is being served meanwhile.
//
// How long a healthy watch can stay silent decides how soon a dead one is
// found. The apiserver's watch cache sends a bookmark every minute, but only
// once the resource's cache has moved past the resourceVersion the watch
// started from: on the test control plane an idle resource's first bookmark
// came 62 to 124 s after the watch opened, then one every 60 s. What it always
// does is end the watch at its timeoutSeconds (with a bookmark 2 s before). So
// the server-side timeout is kept short (50-60 s) and a watch silent for its
// timeout plus a grace is presumed dead: at most 75 s, against the 150 s a
// watchdog keyed to the bookmark cadence needed.
//
// Over HTTP/2 (client.ts, h2-watch.ts) the connection answers for its quiet
// watches: it PINGs after 15 s without a byte and is dropped when the PING
// goes unanswered for 10 s, failing its streams. A watch that opened there
// is told its connection is alive, which confirms its data, and its silence
// bound is that 25 s check plus a 5 s grace: 30 s. The stream's own 75 s
// watchdog stays, for a stream the server forgot on a live connection. The
// bound is reported to the observer when a watch opens (silenceBoundMs is
// the one place it is decided), since only then is the transport known.
import { setImmediate as nextTurn } from "node:timers/promises";
import { parseJsonOrText } from "../net/http-body.ts";
import { Backoff, sleep } from "./backoff.ts";
import { type KubeClient, KubeHttpError } from "./client.ts";
import { peekListPage, peekStrings } from "./json-peek.ts";

export type RelistReason = "initial" | "expired" | "error";
export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED";
export type Operation = "list" | "watch";

/** Receives objects; every call is guarded, so a throwing handler never stops the loop. */
export interface ListWatchHandler {
  /** A full list starts; objects not listed before listFinished() are gone. */
  listStarted(reason: RelistReason): void;
  listed(object: unknown): void;
  listFinished(): void;
  event(type: WatchEventType, object: unknown): void;
}

/** Operational signals, for self-metrics, readiness and logs. */
export interface ListWatchObserver {
  synced(synced: boolean): void;
  relist(reason: RelistReason): void;
  listDuration(seconds: number, objects: number): void;
  /**
   * After each list asked with a shardSelector: whether the apiserver applied
   * it (it echoes the selector in the list's metadata.shardInfo), or refused it;
   * after each list of a shard that asked without one (sharding.filter:
   * exporter, or refused before): "unasked".
   */
  shardSelector?(outcome: "applied" | "ignored" | "refused" | "unasked"): void;
  watchEvent(type: string): void;
  /**
   * The watch's connection was heard from though the watch said nothing
   * (its transport's own liveness check): what is held is still current.
   */
  alive?(): void;
  /** When a watch opens: how long its data may go unconfirmed before it is stale (it depends on the transport). */
  silenceBound?(ms: number): void;
  error(operation: Operation, code: number, error: unknown): void;
  handlerError(error: unknown): void;
}

export interface ListWatchOptions {
  /** Collection path, e.g. /apis/example.com/v1/widgets or …/namespaces/ns/widgets. */
  path: string;
  labelSelector?: string;
  /** e.g. metadata.name=NAME, to follow one object (RBAC may then grant it by resourceNames). */
  fieldSelector?: string;
  /**
   * Asks the apiserver for one shard's objects (ShardedListAndWatch, see
   * core/shard.ts). An apiserver without the feature ignores it, and one that
   * refuses it (400) is asked again without it: either way the handler still
   * sees only what it owns, since the collector filters too.
   */
  shardSelector?: string;
  /**
   * Whether the object with this uid is this shard's. Set, a list item or
   * watch event of another shard's object is recognised from its text
   * (json-peek.ts) and passed over unparsed, while the apiserver is not seen
   * to apply the shard selector; and with a shard selector, another shard's
   * object in a list shows the apiserver did not apply it (a list of custom
   * resources echoes no shardInfo, so this is the evidence).
   */
  ownsUid?: (uid: string) => boolean;
  pageSize?: number;
  /** Longest stretch of handing listed objects over before the event loop gets a turn (ms). */
  listSliceMs?: number;
  /** Server-side watch timeout is drawn from [min, max] seconds, so reconnects spread out. */
  watchTimeoutSeconds?: [number, number];
  /**
   * No bytes (events or bookmarks) for this long: the connection is presumed
   * dead. Default: the watch's own timeout plus silenceGraceMs.
   */
  inactivityMs?: number;
  backoff?: { initialMs: number; maxMs: number };
  /** Ceiling of the backoff after network errors (no HTTP response). */
  networkRetryMaxMs?: number;
  random?: () => number;
  /** Monotonic clock in ms (tests pin how long a list, a slice of it or a watch took). */
  now?: () => number;
  /** Waits between retries (tests record the delays instead of waiting). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

class ExpiredError extends Error {}

/** Server-side watch timeouts: short, so the end of a stream is the heartbeat of an idle watch (see above). */
export const defaultWatchTimeoutSeconds: [number, number] = [50, 60];

/** How long past its timeout a watch may take to end before it is presumed dead (a loaded apiserver). */
export const silenceGraceMs = 15_000;

/**
 * Past the transport's own liveness check (h2: quiet until a PING, then its
 * answer), what a dead connection's streams take to fail and the loop to
 * hear of it: timers on a busy event loop.
 */
export const livenessGraceMs = 5_000;

/**
 * The longest a healthy watch goes without a sign of life: after this long
 * the watch is restarted, and data not confirmed for this long is stale.
 * Over a transport that checks its connection (livenessCheckMs: h2 PINGs)
 * that check plus livenessGraceMs (30 s by default), since the connection
 * speaks for its quiet watches; else the watch's own timeout plus
 * silenceGraceMs (75 s by default).
 */
export function silenceBoundMs(
  options: Pick<ListWatchOptions, "watchTimeoutSeconds" | "inactivityMs">,
  livenessCheckMs?: number,
): number {
  if (options.inactivityMs !== undefined) return options.inactivityMs;
  if (livenessCheckMs !== undefined) return livenessCheckMs + livenessGraceMs;
  const [, max] = options.watchTimeoutSeconds ?? defaultWatchTimeoutSeconds;
  return max * 1000 + silenceGraceMs;
}

/** A timer that fires unless re-armed within `ms`: one per thing that must be heard from. */
function watchdog(ms: number, fire: () => void): { arm(): void; stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  const stop = (): void => clearTimeout(timer);
  return {
    arm: () => {
      stop();
      timer = setTimeout(fire, ms);
    },
    stop,
  };
}

interface WatchEvent {
  type?: string;
  object?: { metadata?: { resourceVersion?: string }; code?: number; message?: string; reason?: string };
}

export class ListWatch {
  readonly #client: KubeClient;
  readonly #handler: ListWatchHandler;
  readonly #observer: ListWatchObserver;
  readonly #options: Required<
    Omit<ListWatchOptions, "labelSelector" | "fieldSelector" | "shardSelector" | "ownsUid" | "inactivityMs">
  > & {
    labelSelector: string | undefined;
    fieldSelector: string | undefined;
    inactivityMs: number | undefined;
  };
  /** The shard selector while the apiserver takes it (dropped for good once refused). */
  #shardSelector: string | undefined;
  readonly #ownsUid: ((uid: string) => boolean) | undefined;
  /** The last list showed the apiserver applying the shard selector: every event is then ours. */
  #filteredByApiserver = false;
  readonly #backoff: Backoff;
  readonly #stop = new AbortController();
  #running: Promise<void> | undefined;

  constructor(
    client: KubeClient,
    handler: ListWatchHandler,
    observer: ListWatchObserver,
    options: ListWatchOptions,
  ) {
    this.#client = client;
    this.#handler = handler;
    this.#observer = observer;
    this.#options = {
      pageSize: 500,
      listSliceMs: 5,
      watchTimeoutSeconds: defaultWatchTimeoutSeconds,
      backoff: { initialMs: 500, maxMs: 30_000 },
      networkRetryMaxMs: 2_000,
      random: Math.random,
      now: () => performance.now(),
      sleep,
      ...options,
      labelSelector: options.labelSelector,
      inactivityMs: options.inactivityMs,
      fieldSelector: options.fieldSelector,
    };
    this.#shardSelector = options.shardSelector;
    this.#ownsUid = options.ownsUid;
    this.#backoff = new Backoff({ ...this.#options.backoff, random: this.#options.random });
  }

  /** Only when set: most collections are not narrowed by field or shard. */
  #selectors(): { fieldSelector?: string; shardSelector?: string } {
    return {
      ...(this.#options.fieldSelector && { fieldSelector: this.#options.fieldSelector }),
      ...(this.#shardSelector && { shardSelector: this.#shardSelector }),
    };
  }

  /**
   * A 400 that names the shard selector: the apiserver has the field but
   * refuses it (a disabled gate may do so). The next list goes without it.
   */
  #refusedShardSelector(status: number, body: unknown): boolean {
    if (status !== 400 || this.#shardSelector === undefined) return false;
    const message = (body as { message?: unknown } | undefined)?.message;
    if (typeof message !== "string" || !/shard/i.test(message)) return false;
    this.#shardSelector = undefined;
    this.#guard(() => this.#observer.shardSelector?.("refused"));
    return true;
  }

  start(): void {
    this.#running ??= this.#run();
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#running;
  }

  #guard(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      try {
        this.#observer.handlerError(error);
      } catch {
        // An observer that throws must not stop the loop either.
      }
    }
  }

  async #run(): Promise<void> {
    const signal = this.#stop.signal;
    let resourceVersion: string | undefined;
    let reason: RelistReason = "initial";
    while (!signal.aborted) {
      // Which request failed, for the error metric: set before each one starts.
      let operation: Operation = "list";
      try {
        if (resourceVersion === undefined) {
          this.#guard(() => this.#observer.synced(false));
          resourceVersion = await this.#list(reason, signal);
          this.#backoff.reset();
        }
        operation = "watch";
        const watchStarted = this.#options.now();
        resourceVersion = await this.#watch(resourceVersion, signal);
        // A server that ends watches at once would otherwise be reconnected in a hot loop.
        if (this.#options.now() - watchStarted < 1_000)
          await this.#options.sleep(this.#backoff.next(), signal);
      } catch (error) {
        if (signal.aborted) break;
        const code = error instanceof KubeHttpError ? error.status : 0;
        if (error instanceof ExpiredError || code === 410) {
          // The resourceVersion is too old to resume from: relist now.
          if (!(error instanceof ExpiredError))
            this.#guard(() => this.#observer.error(operation, code, error));
          resourceVersion = undefined;
          reason = "expired";
          continue;
        }
        this.#guard(() => this.#observer.synced(false));
        this.#guard(() => this.#observer.error(operation, code, error));
        // The next list, should one follow, retries after an error. (A failed
        // watch keeps its resourceVersion: its only way to a list is a 410,
        // which says "expired" instead.)
        reason = "error";
        // No HTTP answer (refused, reset, timed out) or 503: the apiserver is away
        // or still starting, a retry costs it nothing, so keep retrying often and
        // catch up soon after it is back. 429: wait as long as it asks. Anything
        // else (403, 5xx) backs off all the way.
        const retryAfter = error instanceof KubeHttpError ? error.retryAfterSeconds : undefined;
        let delay: number;
        if (code === 0 || code === 503) delay = this.#backoff.next(this.#options.networkRetryMaxMs);
        else if (code === 429 && retryAfter !== undefined) {
          delay =
            Math.min(retryAfter * 1000, this.#options.backoff.maxMs) * (1 + this.#options.random() * 0.2);
        } else delay = this.#backoff.next();
        await this.#options.sleep(delay, signal);
      }
    }
    this.#guard(() => this.#observer.synced(false));
  }

  async #list(reason: RelistReason, signal: AbortSignal): Promise<string> {
    const started = this.#options.now();
    this.#guard(() => this.#observer.relist(reason));
    this.#guard(() => this.#handler.listStarted(reason));
    let continueToken: string | undefined;
    let resourceVersion = "";
    let objects = 0;
    // Whether the apiserver applied the shard selector: it said so, or an object of another shard came.
    let echoed = false;
    let foreign = false;
    do {
      const response = await this.#client.request<{
        items?: unknown[];
        metadata?: { continue?: string; resourceVersion?: string; shardInfo?: { selector?: string } };
        /** Items of other shards passed over unparsed (peekListPage). */
        skipped?: number;
      }>("GET", this.#options.path, {
        ...this.#pageReader(),
        query: {
          limit: this.#options.pageSize,
          continue: continueToken,
          labelSelector: this.#options.labelSelector,
          ...this.#selectors(),
        },
        signal,
        timeoutMs: 120_000,
      });
      // Stryker disable next-line StringLiteral: an ExpiredError only triggers a relist; its message is never shown
      if (response.status === 410 && continueToken) throw new ExpiredError("list continue token expired");
      if (response.status < 200 || response.status >= 300) {
        // Refused: listed again at once, without it (no backoff: nothing is wrong with the apiserver).
        if (this.#refusedShardSelector(response.status, response.body)) return this.#list(reason, signal);
        throw new KubeHttpError(response.status, response.body, `list ${this.#options.path}`);
      }
      const items = Array.isArray(response.body?.items) ? response.body.items : [];
      // Stryker disable next-line ConditionalExpression: without a selector echoed and foreign are read by nothing (the outcome below asks for the selector too)
      if (this.#shardSelector !== undefined) {
        echoed ||= response.body?.metadata?.shardInfo?.selector !== undefined;
        // Said so: nothing to look for in the items.
        if (!echoed)
          foreign ||= (response.body?.skipped ?? 0) > 0 || items.some((item) => this.#othersItem(item));
      }
      await this.#handOver(items, signal);
      objects += items.length;
      continueToken = response.body?.metadata?.continue || undefined;
      resourceVersion = response.body?.metadata?.resourceVersion ?? resourceVersion;
    } while (continueToken && !signal.aborted);
    this.#guard(() => this.#handler.listFinished());
    // No object and no echo tells nothing: said after the next list that has one.
    if (this.#shardSelector !== undefined && (echoed || foreign || objects > 0)) {
      const outcome = echoed || !foreign ? "applied" : "ignored";
      this.#filteredByApiserver = outcome === "applied";
      this.#guard(() => this.#observer.shardSelector?.(outcome));
    } else if (this.#shardSelector === undefined && this.#ownsUid !== undefined)
      this.#guard(() => this.#observer.shardSelector?.("unasked"));
    this.#guard(() => this.#observer.listDuration((this.#options.now() - started) / 1000, objects));
    return resourceVersion;
  }

  /**
   * Hands a page's objects to the handler, yielding to the event loop after
   * every listSliceMs of work. Stopped meanwhile: the list ends without
   * listFinished(), so nothing unlisted is taken for gone.
   */
  async #handOver(items: unknown[], signal: AbortSignal): Promise<void> {
    let sliceStart = this.#options.now();
    for (const item of items) {
      this.#guard(() => this.#handler.listed(item));
      if (this.#options.now() - sliceStart < this.#options.listSliceMs) continue;
      await nextTurn();
      // Stryker disable next-line StringLiteral: the loop only checks that the signal aborted
      if (signal.aborted) throw new Error("stopped while listing");
      sliceStart = this.#options.now();
    }
  }

  /** A listed object of another shard (one without a uid is nobody's: it is skipped further on). */
  #othersItem(item: unknown): boolean {
    const uid = (item as { metadata?: { uid?: unknown } } | null)?.metadata?.uid;
    return this.#ownsUid !== undefined && typeof uid === "string" && !this.#ownsUid(uid);
  }

  /**
   * How a list page is read: for a shard the apiserver is not seen to
   * filter for, other shards' items are passed over unparsed (the page is
   * parsed whole when it does not read that way).
   */
  #pageReader(): { parse?: (text: string) => unknown } {
    const ownsUid = this.#ownsUid;
    if (!ownsUid || this.#filteredByApiserver) return {};
    return { parse: (text) => peekListPage(text, ownsUid) ?? parseJsonOrText(text) };
  }

  /**
   * The type and resourceVersion of a watch event of another shard's object,
   * read from its text; undefined for this shard's (and anything not read
   * that way), which is parsed.
   */
  #foreignEvent(line: string): { type: string; resourceVersion: string | undefined } | undefined {
    if (!this.#ownsUid || this.#filteredByApiserver) return undefined;
    const type = peekStrings(line, [], ["type"])?.get("type");
    if (type !== "ADDED" && type !== "MODIFIED" && type !== "DELETED") return undefined;
    const meta = peekStrings(line, ["object", "metadata"], ["resourceVersion", "uid"]);
    const uid = meta?.get("uid");
    if (uid === undefined || this.#ownsUid(uid)) return undefined;
    return { type, resourceVersion: meta?.get("resourceVersion") };
  }

  /**
   * One line of a watch: counted, handed over (or passed over: another
   * shard's), and what it says of the stream: the resourceVersion to resume
   * from, or the failure that ends it (an ERROR event).
   */
  #watchLine(line: string): { resourceVersion?: string; failure?: Error } {
    const foreign = this.#foreignEvent(line);
    if (foreign) {
      this.#guard(() => this.#observer.watchEvent(foreign.type));
      return { resourceVersion: foreign.resourceVersion };
    }
    let event: WatchEvent;
    try {
      event = JSON.parse(line) as WatchEvent;
    } catch (error) {
      this.#guard(() => this.#observer.handlerError(error));
      return {};
    }
    const type = event.type ?? "UNKNOWN";
    this.#guard(() => this.#observer.watchEvent(type));
    if (type === "ERROR") {
      const status = event.object;
      return {
        failure:
          status?.code === 410
            ? // Stryker disable next-line StringLiteral,LogicalOperator: an ExpiredError only triggers a relist; its message is never shown
              new ExpiredError(status.message ?? "resourceVersion expired")
            : new KubeHttpError(status?.code ?? 0, status, `watch ${this.#options.path}`),
      };
    }
    if (type === "ADDED" || type === "MODIFIED" || type === "DELETED") {
      this.#guard(() => this.#handler.event(type, event.object));
    }
    return { resourceVersion: event.object?.metadata?.resourceVersion };
  }

  /**
   * Watches until the server ends the stream; returns the resourceVersion to
   * resume from. Two watchdogs: the stream's own (no byte for its timeout
   * plus the grace: the server forgot it), and, over a transport that checks
   * its connection, the connection's (no byte and no word of it for the
   * shorter silence bound).
   */
  async #watch(from: string, stop: AbortSignal): Promise<string> {
    const [min, max] = this.#options.watchTimeoutSeconds;
    const timeoutSeconds = Math.round(min + this.#options.random() * (max - min));
    const inactivityMs = this.#options.inactivityMs ?? timeoutSeconds * 1000 + silenceGraceMs;
    const abort = new AbortController();
    const onStop = (): void => abort.abort();
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: the finally below removes it in every case
    stop.addEventListener("abort", onStop, { once: true });
    // Stopped from a handler while the list ran: the abort event has fired already.
    if (stop.aborted) abort.abort();
    let resourceVersion = from;
    let failure: Error | undefined;
    const fail = (error: Error): void => {
      failure ??= error;
      abort.abort();
    };
    const stream = watchdog(inactivityMs, () =>
      fail(new Error(`no data on the watch for ${inactivityMs} ms; reconnecting`)),
    );
    let connection: ReturnType<typeof watchdog> | undefined;
    const onLine = (line: string): void => {
      const read = this.#watchLine(line);
      if (read.resourceVersion) resourceVersion = read.resourceVersion;
      if (read.failure) fail(read.failure);
    };
    try {
      stream.arm();
      await this.#client.stream(this.#options.path, {
        query: {
          watch: 1,
          allowWatchBookmarks: true,
          resourceVersion: from,
          timeoutSeconds,
          labelSelector: this.#options.labelSelector,
          ...this.#selectors(),
        },
        signal: abort.signal,
        onLine,
        onActivity: () => {
          stream.arm();
          connection?.arm();
        },
        onAlive: () => {
          connection?.arm();
          this.#guard(() => this.#observer.alive?.());
        },
        onOpen: (transport) => {
          connection = this.#connectionWatchdog(transport?.livenessCheckMs, fail);
          this.#backoff.reset();
          this.#guard(() => this.#observer.synced(true));
        },
      });
    } catch (error) {
      if (!failure && !stop.aborted) throw error;
    } finally {
      stream.stop();
      connection?.stop();
      stop.removeEventListener("abort", onStop);
    }
    if (failure && !stop.aborted) throw failure;
    return resourceVersion;
  }

  /**
   * A watch opened: the observer learns its silence bound, and over a
   * transport that checks its connection, a watchdog keeps to that bound.
   */
  #connectionWatchdog(
    livenessCheckMs: number | undefined,
    fail: (error: Error) => void,
  ): ReturnType<typeof watchdog> | undefined {
    const boundMs = silenceBoundMs(this.#options, livenessCheckMs);
    this.#guard(() => this.#observer.silenceBound?.(boundMs));
    if (livenessCheckMs === undefined) return undefined;
    const connection = watchdog(boundMs, () =>
      fail(new Error(`no sign of life from the watch's connection for ${boundMs} ms; reconnecting`)),
    );
    connection.arm();
    return connection;
  }
}
