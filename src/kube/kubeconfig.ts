// Kubernetes credentials: @kubernetes/client-node's KubeConfig (kubeconfig
// files, in-cluster service account, exec plugins, auth providers, client
// certificates), loaded without the parts of that library this exporter never
// calls. KubeConfig's module imports the whole generated API (for
// makeApiClient) and undici (for applyToFetchOptions); together they hold about
// 70 MiB of an idle process, which every sidecar would pay. A module
// resolution hook hands KubeConfig stand-ins for those two imports while it
// loads; client.ts only uses applyToHTTPSOptions, which needs neither.
import { existsSync } from "node:fs";
import { registerHooks } from "node:module";
import { homedir } from "node:os";
import { join } from "node:path";
import type { KubeConfig } from "@kubernetes/client-node";

const kubeConfigModule = "@kubernetes/client-node/dist/config.js";
const standIns = new URL("./client-node-stand-ins.ts", import.meta.url).href;
/** What KubeConfig's module imports that is replaced while it loads (see client-node-stand-ins.ts). */
const replaced = new Set(["./gen/index.js", "undici"]);

let loading: Promise<typeof KubeConfig> | undefined;

/** The KubeConfig class, loaded once without the generated API and undici. */
export function kubeConfigClass(): Promise<typeof KubeConfig> {
  loading ??= (async () => {
    const hooks = registerHooks({
      resolve(specifier, context, nextResolve) {
        if (
          replaced.has(specifier) &&
          context.parentURL?.endsWith("/@kubernetes/client-node/dist/config.js")
        ) {
          return { url: standIns, shortCircuit: true };
        }
        return nextResolve(specifier, context);
      },
    });
    try {
      const module = (await import(kubeConfigModule)) as { KubeConfig: typeof KubeConfig };
      return module.KubeConfig;
    } finally {
      hooks.deregister();
    }
  })();
  return loading;
}

export interface KubeConfigSource {
  /** A kubeconfig file; default: KUBECONFIG, ~/.kube/config, or the in-cluster service account. */
  path: string | undefined;
  /** A context of that file other than its current one. */
  context: string | undefined;
}

/**
 * Where credentials come from when no file is given: a KUBECONFIG file that
 * exists, else ~/.kube/config (only without KUBECONFIG, as kubectl does), else
 * the in-cluster service account; undefined when there is none.
 */
export function defaultKubeConfigOrigin(
  env: Readonly<Record<string, string | undefined>>,
  fileExists: (path: string) => boolean = existsSync,
  home: string = env.HOME ?? homedir(),
): "KUBECONFIG" | "~/.kube/config" | "in-cluster" | undefined {
  const listed = (env.KUBECONFIG ?? "").split(":").filter((p) => p !== "");
  if (listed.some(fileExists)) return "KUBECONFIG";
  if (listed.length === 0 && fileExists(join(home, ".kube", "config"))) return "~/.kube/config";
  if (env.KUBERNETES_SERVICE_HOST !== undefined) return "in-cluster";
  return undefined;
}

export const noKubeConfigMessage =
  "no kubeconfig found (KUBECONFIG, ~/.kube/config) and not in a pod: give --kubeconfig FILE";

export async function loadKubeConfig(source: KubeConfigSource): Promise<KubeConfig> {
  // With nothing to load, client-node's loadFromDefault invents a cluster at
  // http://localhost, and the first request fails with a TLS message that
  // says nothing about the cause.
  if (!source.path && defaultKubeConfigOrigin(process.env) === undefined)
    throw new Error(noKubeConfigMessage);
  const kubeConfig = new (await kubeConfigClass())();
  if (source.path) kubeConfig.loadFromFile(source.path);
  else kubeConfig.loadFromDefault();
  if (source.context) kubeConfig.setCurrentContext(source.context);
  if (!kubeConfig.getCurrentCluster()) {
    throw new Error("no Kubernetes cluster configured: set KUBECONFIG or --kubeconfig, or run inside a pod");
  }
  return kubeConfig;
}
