// A real Kubernetes control plane (etcd + kube-apiserver) on free loopback
// ports, for tests, benchmarks and the demo. Several can run at once. Each
// owns a temporary directory with its data, certificates, token file, logs and
// kubeconfigs, and everything is torn down on stop(), on process exit, on
// Ctrl-C, and by a watchdog shell if this process is killed outright.
import { type ChildProcess, spawn } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { stringify } from "yaml";
import { type ControlPlaneBinaries, resolveBinaries } from "./binaries.ts";
import { freePort } from "./ports.ts";
import { RestClient } from "./rest.ts";

export interface ControlPlaneOptions {
  /** Extra kube-apiserver flags, e.g. `--etcd-compaction-interval=5s`. */
  apiserverArgs?: string[];
  /** How long to wait for /readyz (default 120 s: a loaded 2-core machine is slow). */
  startTimeoutMs?: number;
  /** Size of the pool of static-token users that mintUser() hands out. */
  userPoolSize?: number;
}

/** An identity with its own token and kubeconfig. */
export interface TestUser {
  name: string;
  token: string;
  kubeconfigPath: string;
  rest: RestClient;
}

interface ManagedProcess {
  name: string;
  child: ChildProcess;
  logPath: string;
  exited: Promise<number | null>;
}

const live = new Set<ControlPlane>();
let exitHooksInstalled = false;

function installExitHooks(): void {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  // 'exit' handlers must be synchronous: SIGKILL whatever is still running.
  process.on("exit", () => {
    for (const plane of live) plane.killNow();
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => {
      void Promise.allSettled([...live].map((plane) => plane.stop())).then(() => process.exit(130));
    });
  }
}

function scratchRoot(): string {
  // etcd fsyncs are disabled, but a tmpfs still makes writes and cleanup faster.
  return existsSync("/dev/shm") ? "/dev/shm" : tmpdir();
}

function tail(path: string, lines: number): string {
  try {
    return readFileSync(path, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

export class ControlPlane {
  readonly directory: string;
  readonly server: string;
  readonly caPem: string;
  readonly caFile: string;
  readonly etcdUrl: string;
  /** system:masters; bypasses RBAC. Use it for setup only. */
  readonly admin: TestUser;
  readonly binaries: ControlPlaneBinaries;
  /** Milliseconds from spawning etcd to a ready apiserver. */
  readonly startMs: number;
  readonly #processes: ManagedProcess[];
  readonly #userPool: { name: string; token: string }[];
  #nextUser = 0;
  #stopping: Promise<void> | undefined;

  private constructor(init: {
    directory: string;
    server: string;
    caPem: string;
    caFile: string;
    etcdUrl: string;
    admin: TestUser;
    binaries: ControlPlaneBinaries;
    startMs: number;
    processes: ManagedProcess[];
    userPool: { name: string; token: string }[];
  }) {
    this.directory = init.directory;
    this.server = init.server;
    this.caPem = init.caPem;
    this.caFile = init.caFile;
    this.etcdUrl = init.etcdUrl;
    this.admin = init.admin;
    this.binaries = init.binaries;
    this.startMs = init.startMs;
    this.#processes = init.processes;
    this.#userPool = init.userPool;
  }

  /** Starts etcd and kube-apiserver and resolves once /readyz answers 200. */
  static async start(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
    installExitHooks();
    const binaries = resolveBinaries();
    let lastError: unknown;
    // A free port can be taken between asking for it and binding it: retry.
    for (let attempt = 1; attempt <= 3; attempt++) {
      try {
        return await ControlPlane.#startOnce(binaries, options);
      } catch (error) {
        lastError = error;
        if (!String(error).includes("address already in use")) break;
      }
    }
    throw lastError;
  }

  static async #startOnce(
    binaries: ControlPlaneBinaries,
    options: ControlPlaneOptions,
  ): Promise<ControlPlane> {
    const started = performance.now();
    const directory = mkdtempSync(join(scratchRoot(), "cr-testbed-"));
    const processes: ManagedProcess[] = [];
    const cleanupOnFailure = async (error: unknown): Promise<never> => {
      const tails = processes.map((p) => `--- ${p.name} (${p.logPath})\n${tail(p.logPath, 30)}`).join("\n");
      for (const p of processes) p.child.kill("SIGKILL");
      await Promise.all(processes.map((p) => p.exited));
      rmSync(directory, { recursive: true, force: true });
      throw new Error(`control plane failed to start: ${String(error)}\n${tails}`);
    };
    try {
      const [etcdClientPort, etcdPeerPort, apiPort] = await Promise.all([freePort(), freePort(), freePort()]);
      const etcdUrl = `http://127.0.0.1:${etcdClientPort}`;
      const etcdPeer = `http://127.0.0.1:${etcdPeerPort}`;
      processes.push(
        spawnLogged("etcd", binaries.etcd, directory, [
          "--name=default",
          `--data-dir=${join(directory, "etcd")}`,
          `--listen-client-urls=${etcdUrl}`,
          `--advertise-client-urls=${etcdUrl}`,
          `--listen-peer-urls=${etcdPeer}`,
          `--initial-advertise-peer-urls=${etcdPeer}`,
          `--initial-cluster=default=${etcdPeer}`,
          "--unsafe-no-fsync=true",
          "--log-level=warn",
        ]),
      );

      const adminToken = randomBytes(24).toString("hex");
      const userPool = Array.from({ length: options.userPoolSize ?? 24 }, (_, i) => ({
        name: `test-user-${String(i).padStart(2, "0")}`,
        token: randomBytes(24).toString("hex"),
      }));
      // The token file is read once at start-up, so users are declared up front
      // and given permissions later through real RBAC objects.
      writeFileSync(
        join(directory, "tokens.csv"),
        [
          `${adminToken},admin,uid-admin,"system:masters"`,
          ...userPool.map((u) => `${u.token},${u.name},uid-${u.name}`),
        ].join("\n"),
      );
      const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
      writeFileSync(join(directory, "sa.pub"), publicKey.export({ type: "spki", format: "pem" }));
      writeFileSync(join(directory, "sa.key"), privateKey.export({ type: "pkcs8", format: "pem" }));

      await waitFor("etcd /health", 30_000, processes, async () => {
        const response = await fetch(`${etcdUrl}/health`).catch(() => undefined);
        return response?.ok === true;
      });

      const server = `https://127.0.0.1:${apiPort}`;
      processes.push(
        spawnLogged("kube-apiserver", binaries.kubeApiserver, directory, [
          `--etcd-servers=${etcdUrl}`,
          "--bind-address=127.0.0.1",
          `--secure-port=${apiPort}`,
          `--cert-dir=${join(directory, "pki")}`,
          `--service-account-issuer=${server}`,
          `--service-account-key-file=${join(directory, "sa.pub")}`,
          `--service-account-signing-key-file=${join(directory, "sa.key")}`,
          "--service-cluster-ip-range=10.0.0.0/24",
          "--authorization-mode=RBAC",
          `--token-auth-file=${join(directory, "tokens.csv")}`,
          "--disable-admission-plugins=ServiceAccount",
          "--allow-privileged=true",
          "--endpoint-reconciler-type=none",
          "--v=0",
          ...(options.apiserverArgs ?? []),
        ]),
      );

      const caFile = join(directory, "pki", "apiserver.crt");
      await waitFor("kube-apiserver /readyz", options.startTimeoutMs ?? 120_000, processes, async () => {
        if (!existsSync(caFile)) return false;
        const probe = new RestClient(server, readFileSync(caFile, "utf8"), adminToken);
        try {
          const response = await probe.raw("GET", "/readyz");
          return response.status === 200;
        } catch {
          return false;
        } finally {
          probe.close();
        }
      });
      const caPem = readFileSync(caFile, "utf8");
      const admin = makeUser(directory, server, caFile, caPem, "admin", adminToken);
      const plane = new ControlPlane({
        directory,
        server,
        caPem,
        caFile,
        etcdUrl,
        admin,
        binaries,
        startMs: Math.round(performance.now() - started),
        processes,
        userPool,
      });
      live.add(plane);
      startWatchdog(processes);
      return plane;
    } catch (error) {
      return cleanupOnFailure(error);
    }
  }

  /** Process ids of etcd and kube-apiserver (a benchmark pins them to CPUs). */
  get pids(): number[] {
    return this.#processes.map((p) => p.child.pid).filter((pid): pid is number => pid !== undefined);
  }

  /** Path of the admin kubeconfig (system:masters). */
  get kubeconfigPath(): string {
    return this.admin.kubeconfigPath;
  }

  /**
   * Hands out a fresh identity with no permissions at all. Grant it what a test
   * needs with grant() / grantCluster(): real Role/ClusterRole + bindings.
   */
  mintUser(): TestUser {
    const entry = this.#userPool[this.#nextUser++];
    if (!entry) throw new Error(`all ${this.#userPool.length} test users are in use; raise userPoolSize`);
    return makeUser(this.directory, this.server, this.caFile, this.caPem, entry.name, entry.token);
  }

  /** Creates a Role with `rules` in `namespace` and binds it to the user. */
  async grant(user: TestUser, namespace: string, rules: PolicyRule[]): Promise<void> {
    const name = `${user.name}-role`;
    await this.admin.rest.create(`/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}/roles`, {
      metadata: { name },
      rules,
    });
    await this.admin.rest.create(`/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}/rolebindings`, {
      metadata: { name },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: user.name }],
    });
    await this.#untilAuthorized(user, rules, namespace);
  }

  /** Creates a ClusterRole with `rules` and binds it cluster-wide to the user. */
  async grantCluster(user: TestUser, rules: PolicyRule[]): Promise<void> {
    const name = `${user.name}-cluster-role`;
    await this.admin.rest.create("/apis/rbac.authorization.k8s.io/v1/clusterroles", {
      metadata: { name },
      rules,
    });
    await this.admin.rest.create("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
      metadata: { name },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: user.name }],
    });
    await this.#untilAuthorized(user, rules);
  }

  /**
   * The RBAC authorizer reads roles and bindings from its own informers, so a
   * binding just created can still be refused for a moment (seen once: 403 on
   * the first request after grant()). Asks the same authorizer with a
   * SubjectAccessReview until the first rule's first verb is allowed: both
   * objects are in its cache by then, and with them every rule of the role.
   */
  #untilAuthorized(user: TestUser, rules: PolicyRule[], namespace?: string): Promise<void> {
    const rule = rules[0];
    if (!rule) return Promise.resolve();
    const [resource = "", subresource] = (rule.resources[0] ?? "").split("/");
    return this.untilAllowed(user, {
      resourceAttributes: {
        group: rule.apiGroups[0] ?? "",
        resource,
        verb: rule.verbs[0] ?? "",
        ...(subresource ? { subresource } : {}),
        ...(namespace ? { namespace } : {}),
        ...(rule.resourceNames?.[0] ? { name: rule.resourceNames[0] } : {}),
      },
    });
  }

  /**
   * Resolves once the apiserver's authorizer allows `user` what `access` names
   * (a SubjectAccessReview's resourceAttributes or nonResourceAttributes),
   * polled every 20 ms; rejects after 10 s. For bindings a test creates itself.
   */
  async untilAllowed(user: TestUser, access: Record<string, unknown>): Promise<void> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const review = await this.admin.rest.create<{ status?: { allowed?: boolean } }>(
        "/apis/authorization.k8s.io/v1/subjectaccessreviews",
        { spec: { user: user.name, ...access } },
      );
      if (review.status?.allowed) return;
      if (Date.now() > deadline) {
        throw new Error(`${user.name} still not allowed ${JSON.stringify(access)} 10 s after the grant`);
      }
      await sleep(20);
    }
  }

  /** Creates a namespace with a unique name (namespaces never finish deleting without a controller manager). */
  async createNamespace(prefix = "t"): Promise<string> {
    const name = `${prefix}-${randomBytes(4).toString("hex")}`;
    await this.admin.rest.create("/api/v1/namespaces", { metadata: { name } });
    return name;
  }

  /** The last lines of each process's log. */
  logTails(lines = 40): string {
    return this.#processes.map((p) => `--- ${p.name} (${p.logPath})\n${tail(p.logPath, lines)}`).join("\n");
  }

  /** Stops the apiserver, then etcd, and removes the directory. Safe to call twice. */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      this.admin.rest.close();
      for (const p of [...this.#processes].reverse()) {
        p.child.kill("SIGTERM");
        const exited = await Promise.race([p.exited.then(() => true), sleep(5_000).then(() => false)]);
        if (!exited) {
          p.child.kill("SIGKILL");
          await p.exited;
        }
      }
      live.delete(this);
      rmSync(this.directory, { recursive: true, force: true });
    })();
    return this.#stopping;
  }

  /** Synchronous last resort from the process 'exit' hook. */
  killNow(): void {
    for (const p of this.#processes) p.child.kill("SIGKILL");
    rmSync(this.directory, { recursive: true, force: true });
  }

  /**
   * Restarts kube-apiserver only (same port, same etcd): for "the apiserver went
   * away under a client" tests. `whileDown` runs while it is stopped and gets
   * a second, temporary apiserver on the same etcd, so changes can happen that
   * the first one's clients never see as watch events. `signal: "SIGKILL"`
   * kills it outright (no graceful shutdown, connections just die).
   */
  async restartApiserver(
    whileDown?: (other: RestClient) => Promise<void>,
    options: { signal?: "SIGTERM" | "SIGKILL" } = {},
  ): Promise<void> {
    const index = this.#processes.findIndex((p) => p.name === "kube-apiserver");
    const old = this.#processes[index];
    if (!old) throw new Error("no kube-apiserver process");
    const args = old.child.spawnargs.slice(1);
    old.child.kill(options.signal ?? "SIGTERM");
    await old.exited;
    if (whileDown) {
      const port = await freePort();
      const otherArgs = args.map((a) =>
        a.startsWith("--secure-port=")
          ? `--secure-port=${port}`
          : a.startsWith("--cert-dir=")
            ? `--cert-dir=${join(this.directory, "pki-other")}`
            : a,
      );
      const other = spawnLogged(
        "kube-apiserver-other",
        this.binaries.kubeApiserver,
        this.directory,
        otherArgs,
      );
      startWatchdog([other]);
      const caFile = join(this.directory, "pki-other", "apiserver.crt");
      const adminToken = this.admin.token;
      let rest: RestClient | undefined;
      try {
        await waitFor("second kube-apiserver /readyz", 120_000, [other], async () => {
          if (!existsSync(caFile)) return false;
          rest ??= new RestClient(`https://127.0.0.1:${port}`, readFileSync(caFile, "utf8"), adminToken);
          const response = await rest.raw("GET", "/readyz").catch(() => undefined);
          return response?.status === 200;
        });
        await whileDown(rest as RestClient);
      } finally {
        rest?.close();
        other.child.kill("SIGTERM");
        await other.exited;
      }
    }
    const replacement = spawnLogged("kube-apiserver", this.binaries.kubeApiserver, this.directory, args);
    this.#processes[index] = replacement;
    startWatchdog([replacement]);
    await waitFor("kube-apiserver /readyz after restart", 120_000, [replacement], async () => {
      const response = await this.admin.rest.raw("GET", "/readyz").catch(() => undefined);
      return response?.status === 200;
    });
  }

  /** Compacts etcd at its current revision: every older resourceVersion becomes too old to watch from. */
  async compactEtcd(): Promise<number> {
    const post = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
      const response = await fetch(`${this.etcdUrl}${path}`, { method: "POST", body: JSON.stringify(body) });
      if (!response.ok) throw new Error(`etcd ${path}: HTTP ${response.status} ${await response.text()}`);
      return (await response.json()) as Record<string, unknown>;
    };
    const range = await post("/v3/kv/range", { key: Buffer.from("/").toString("base64"), limit: 1 });
    const revision = Number((range.header as { revision?: string } | undefined)?.revision);
    if (!Number.isFinite(revision)) throw new Error("etcd did not report its revision");
    await post("/v3/kv/compaction", { revision: String(revision), physical: true });
    return revision;
  }
}

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

function spawnLogged(name: string, binary: string, directory: string, args: string[]): ManagedProcess {
  const logPath = join(directory, `${name}.log`);
  const fd = openSync(logPath, "a");
  const child = spawn(binary, args, { stdio: ["ignore", fd, fd] });
  closeSync(fd);
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => resolve(code));
    child.once("error", () => resolve(-1));
  });
  return { name, child, logPath, exited };
}

/**
 * A detached shell that kills the processes once this Node process is gone,
 * so a SIGKILLed test runner never leaves an apiserver behind.
 */
function startWatchdog(processes: ManagedProcess[]): void {
  const pids = processes.map((p) => p.child.pid).filter((pid): pid is number => pid !== undefined);
  if (pids.length === 0) return;
  const alive = pids.map((pid) => `kill -0 ${pid} 2>/dev/null`).join(" || ");
  const script = `while kill -0 ${process.pid} 2>/dev/null && { ${alive}; }; do sleep 1; done; kill -9 ${pids.join(" ")} 2>/dev/null; exit 0`;
  const watchdog = spawn("sh", ["-c", script], { detached: true, stdio: "ignore" });
  watchdog.unref();
}

async function waitFor(
  what: string,
  timeoutMs: number,
  processes: ManagedProcess[],
  probe: () => Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const p of processes) {
      if (p.child.exitCode !== null)
        throw new Error(`${p.name} exited with code ${p.child.exitCode} while waiting for ${what}`);
    }
    if (await probe()) return;
    await sleep(100);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

function makeUser(
  directory: string,
  server: string,
  caFile: string,
  caPem: string,
  name: string,
  token: string,
): TestUser {
  const kubeconfigPath = join(directory, `kubeconfig-${name}.yaml`);
  writeFileSync(kubeconfigPath, kubeconfigYaml(server, caFile, name, token), { mode: 0o600 });
  return { name, token, kubeconfigPath, rest: new RestClient(server, caPem, token) };
}

/** A kubeconfig for one user, readable by client-node, kubectl and client-go. */
export function kubeconfigYaml(server: string, caFile: string, user: string, token: string): string {
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "testbed", cluster: { server, "certificate-authority": caFile } }],
    users: [{ name: user, user: { token } }],
    contexts: [{ name: user, context: { cluster: "testbed", user } }],
    "current-context": user,
  });
}
