// kubectl, a real client-go client, for end-to-end tests: $KUBECTL_BINARY, else
// built once (then cached outside the repository) by build-kubectl.sh. Runs are
// asynchronous: the server kubectl talks to may live in this very process.
import { execFile, execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

let resolved: string | undefined;

export function resolveKubectl(): string {
  if (resolved) return resolved;
  const explicit = process.env.KUBECTL_BINARY;
  if (explicit) {
    resolved = explicit;
    return explicit;
  }
  const output = execFileSync("bash", [join(here, "build-kubectl.sh")], {
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
  });
  const binary = output.trim().split("\n").at(-1);
  if (!binary) throw new Error("build-kubectl.sh printed no binary path");
  resolved = binary;
  return binary;
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs kubectl with only this kubeconfig (no $KUBECONFIG, no ~/.kube), never throwing on a non-zero exit. */
export function kubectl(kubeconfig: string, args: string[], stdin?: string): Promise<KubectlResult> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: dirname(kubeconfig) };
  return new Promise((resolve, reject) => {
    const child = execFile(
      resolveKubectl(),
      ["--kubeconfig", kubeconfig, "--request-timeout=30s", ...args],
      { env, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        if (error && typeof error.code !== "number")
          reject(new Error(`kubectl ${args.join(" ")}: ${error.message}`));
        else resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end(stdin);
  });
}
