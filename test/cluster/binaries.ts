// Finds the kube-apiserver and etcd binaries for the test control plane, in the
// order controller-runtime's envtest uses, so existing envtest setups just work:
//   1. TEST_ASSET_KUBE_APISERVER / TEST_ASSET_ETCD (full paths)
//   2. $KUBEBUILDER_ASSETS/<name>
//   3. the setup-envtest store this project builds into (build-binaries.sh)
// When none of them has the binaries and Go is installed, they are built once.
import { execFileSync } from "node:child_process";
import { accessSync, constants, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export interface ControlPlaneBinaries {
  kubeApiserver: string;
  etcd: string;
  /** Where the binaries were found, for logs. */
  source: string;
}

const here = dirname(fileURLToPath(import.meta.url));
const buildScript = join(here, "build-binaries.sh");

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The store directory build-binaries.sh writes to, derived from the pinned version in gobuild/go.mod. */
export function storeDirectory(): string {
  const goMod = readFileSync(join(here, "gobuild", "go.mod"), "utf8");
  const match = /^\s*k8s\.io\/kubernetes\s+v(\S+)/m.exec(goMod);
  if (!match?.[1]) throw new Error("test/cluster/gobuild/go.mod does not pin k8s.io/kubernetes");
  const dataHome = process.env.XDG_DATA_HOME ?? join(homedir(), ".local", "share");
  return join(dataHome, "kubebuilder-envtest", "k8s", `${match[1]}-linux-amd64`);
}

function fromEnvironment(): ControlPlaneBinaries | undefined {
  const explicitApiserver = process.env.TEST_ASSET_KUBE_APISERVER;
  const explicitEtcd = process.env.TEST_ASSET_ETCD;
  const assets = process.env.KUBEBUILDER_ASSETS;
  const kubeApiserver = explicitApiserver ?? (assets ? join(assets, "kube-apiserver") : undefined);
  const etcd = explicitEtcd ?? (assets ? join(assets, "etcd") : undefined);
  if (!kubeApiserver && !etcd) return undefined;
  for (const [name, path] of [
    ["kube-apiserver", kubeApiserver],
    ["etcd", etcd],
  ] as const) {
    if (!path || !isExecutable(path)) {
      throw new Error(
        `${name} not found: TEST_ASSET_* / KUBEBUILDER_ASSETS point at ${path ?? "(unset)"}, which is not an executable file`,
      );
    }
  }
  return { kubeApiserver: kubeApiserver as string, etcd: etcd as string, source: "environment" };
}

let cached: ControlPlaneBinaries | undefined;

/**
 * Resolves the binaries, building them with Go when nothing else provides them.
 * The build script is a no-op when its stamp matches, so calling this is cheap.
 */
export function resolveBinaries(): ControlPlaneBinaries {
  if (cached) return cached;
  const fromEnv = fromEnvironment();
  if (fromEnv) {
    cached = fromEnv;
    return cached;
  }
  // The script prints the store directory last; its progress goes to stderr (inherited).
  const output = execFileSync("bash", [buildScript], {
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
  });
  const directory = output.trim().split("\n").at(-1) ?? storeDirectory();
  cached = {
    kubeApiserver: join(directory, "kube-apiserver"),
    etcd: join(directory, "etcd"),
    source: directory,
  };
  return cached;
}
