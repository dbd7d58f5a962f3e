// `npm start`: runs the exporter against the current kubeconfig (KUBECONFIG,
// ~/.kube/config, or the in-cluster service account). Where there is none, it
// says so and starts the local demo cluster instead (`npm run demo`), so the
// command always shows something. Arguments after `--` go to the exporter.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

const args = process.argv.slice(2);
const kubeconfigs = (process.env.KUBECONFIG ?? "").split(":").filter((p) => p !== "");
const hasCluster =
  args.some(
    (a) => a === "--kubeconfig" || a.startsWith("--kubeconfig=") || a === "--help" || a === "--version",
  ) ||
  kubeconfigs.some((p) => existsSync(p)) ||
  (kubeconfigs.length === 0 && existsSync(join(homedir(), ".kube", "config"))) ||
  process.env.KUBERNETES_SERVICE_HOST !== undefined;

const here = import.meta.dirname;
const target = hasCluster ? join(here, "..", "src", "main.ts") : join(here, "demo.ts");
if (!hasCluster) {
  process.stderr.write(
    "start: no kubeconfig found (KUBECONFIG, ~/.kube/config) and not in a pod: starting the local demo cluster instead\n",
  );
}
const child = spawn(process.execPath, [target, ...(hasCluster ? args : [])], { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
