// The test operator (controller-runtime, gobuild/main.go) as a child process
// (Widgets, or with `certificates` cert-manager's Certificates):
// $WIDGET_OPERATOR_BINARY, else built once (then cached outside the
// repository) by build-operator.sh. It reads only the kubeconfig it is given,
// prints a line per step, and exits when its stdin closes, so it never
// outlives the test process.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

let resolved: string | undefined;

export function resolveWidgetOperator(): string {
  if (resolved) return resolved;
  resolved =
    process.env.WIDGET_OPERATOR_BINARY ||
    execFileSync("bash", [join(here, "build-operator.sh")], {
      stdio: ["ignore", "pipe", "inherit"],
      encoding: "utf8",
    })
      .trim()
      .split("\n")
      .at(-1);
  if (!resolved) throw new Error("build-operator.sh printed no binary path");
  return resolved;
}

export interface WidgetOperator {
  /** Every line printed so far, stdout and stderr interleaved. */
  readonly lines: string[];
  /** Resolves with the first line (seen or to come) matching `pattern`. */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<string>;
  stop(): Promise<void>;
}

export function startWidgetOperator(options: {
  kubeconfig: string;
  namespace: string;
  workDelay: string;
  /** Reconcile cert-manager.io/v1 Certificates in cert-manager's status shape instead of Widgets. */
  certificates?: boolean;
  /** Hold a leader-election Lease of this name in the namespace (Go durations: "4s", "500ms"). */
  leaderElection?: { id: string; leaseDuration: string; renewDeadline: string; retryPeriod: string };
}): WidgetOperator {
  const args = ["--namespace", options.namespace, "--work-delay", options.workDelay];
  if (options.certificates) args.push("--certificates");
  const election = options.leaderElection;
  if (election) {
    args.push("--leader-elect-id", election.id, "--lease-duration", election.leaseDuration);
    args.push("--renew-deadline", election.renewDeadline, "--retry-period", election.retryPeriod);
  }
  const child: ChildProcess = spawn(resolveWidgetOperator(), args, {
    env: { PATH: process.env.PATH, HOME: dirname(options.kubeconfig), KUBECONFIG: options.kubeconfig },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const collect = (chunk: Buffer, partial: { text: string }): void => {
    partial.text += chunk.toString("utf8");
    const complete = partial.text.split("\n");
    partial.text = complete.pop() ?? "";
    for (const line of complete) {
      lines.push(line);
      for (const waiter of [...waiters]) {
        if (waiter.pattern.test(line)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    }
  };
  const out = { text: "" };
  const err = { text: "" };
  child.stdout?.on("data", (chunk: Buffer) => collect(chunk, out));
  child.stderr?.on("data", (chunk: Buffer) => collect(chunk, err));
  return {
    lines,
    waitForLine(pattern, timeoutMs) {
      const seen = lines.find((line) => pattern.test(line));
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(
            new Error(
              `no operator line matching ${pattern} in ${timeoutMs} ms; last lines:\n${lines.slice(-20).join("\n")}`,
            ),
          );
        }, timeoutMs);
        const waiter = {
          pattern,
          resolve: (line: string) => {
            clearTimeout(timer);
            resolve(line);
          },
        };
        waiters.push(waiter);
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.stdin?.end(); // the operator's own watchdog: it exits when stdin closes
      const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}
