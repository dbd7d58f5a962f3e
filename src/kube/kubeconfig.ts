// Kubernetes credentials: @kubernetes/client-node's KubeConfig (kubeconfig
// files, in-cluster service account, exec plugins, auth providers, client
// certificates), loaded without the parts of that library this exporter never
// calls. KubeConfig's module imports the whole generated API (for
// makeApiClient) and undici (for applyToFetchOptions); together they hold about
// 70 MiB of an idle process, which every sidecar would pay. A module
// resolution hook hands KubeConfig stand-ins for those two imports while it
// loads; client.ts only uses applyToHTTPSOptions, which needs neither.
import { registerHooks } from "node:module";
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

export async function loadKubeConfig(source: KubeConfigSource): Promise<KubeConfig> {
  const kubeConfig = new (await kubeConfigClass())();
  if (source.path) kubeConfig.loadFromFile(source.path);
  else kubeConfig.loadFromDefault();
  if (source.context) kubeConfig.setCurrentContext(source.context);
  if (!kubeConfig.getCurrentCluster()) {
    throw new Error("no Kubernetes cluster configured: set KUBECONFIG or --kubeconfig, or run inside a pod");
  }
  return kubeConfig;
}
