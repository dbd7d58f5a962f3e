// `npm start`: runs the exporter against the current kubeconfig (KUBECONFIG,
// ~/.kube/config, or the in-cluster service account). A plain `npm start`
// where there is none says so and starts the local demo cluster instead
// (`npm run demo`), so the command always shows something. Arguments after
// `--` (subcommands such as `status`, flags such as `--check-config FILE`) go
// to the exporter unchanged, cluster or not: it says itself what it lacks.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { defaultKubeConfigOrigin } from "../src/kube/kubeconfig.ts";

/** The demo runs only for a plain `npm start` without a cluster. */
export function startsDemo(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  return args.length === 0 && defaultKubeConfigOrigin(env) === undefined;
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const demo = startsDemo(args, process.env);
  const here = import.meta.dirname;
  if (demo) {
    process.stderr.write(
      "start: no kubeconfig found (KUBECONFIG, ~/.kube/config) and not in a pod: starting the local demo cluster instead\n",
    );
  }
  const target = demo ? join(here, "demo.ts") : join(here, "..", "src", "main.ts");
  const child = spawn(process.execPath, [target, ...args], { stdio: "inherit" });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
