// What the metrics listener is, from the configuration: plain HTTP (the
// default), HTTPS from a web configuration file (server/tls.ts), and with
// metricsAuth: kubernetes, bearer tokens checked against the cluster for
// /metrics (server/metrics-auth.ts). Kubernetes auth without TLS is refused:
// it would carry the scraper's service account token in clear text.
import type { Config } from "../config/schema.ts";
import { ConfigError } from "../config/validate.ts";
import type { KubeClient } from "../kube/client.ts";
import type { Logger } from "../log.ts";
import type { ServerFactory } from "./http.ts";
import { KubernetesMetricsAuth, withMetricsAuth } from "./metrics-auth.ts";
import { createTlsServer, readMaterial, type TlsListener } from "./tls.ts";
import { loadWebConfig } from "./web-config.ts";

export function metricsServerFactory(
  config: Pick<Config, "webConfigFile" | "metricsAuth">,
  client: Pick<KubeClient, "request">,
  logger: Logger,
  reloadIntervalMs?: number,
): ServerFactory | undefined {
  const webConfigFile = config.webConfigFile;
  const tls = webConfigFile ? loadWebConfig(webConfigFile).tls : undefined;
  if (config.metricsAuth === "kubernetes" && !tls) {
    throw new ConfigError([
      "metricsAuth: kubernetes needs HTTPS: set webConfigFile to a web configuration file with tls_server_config " +
        "(bearer tokens must not cross the network in clear text)",
    ]);
  }
  if (!webConfigFile || !tls) return undefined;
  // Unreadable or mismatched files are a configuration error (exit 2), found before listening.
  readMaterial(tls);
  const auth = config.metricsAuth === "kubernetes" ? new KubernetesMetricsAuth(client) : undefined;
  let listener: TlsListener | undefined;
  return {
    scheme: "https",
    create(handler) {
      listener = createTlsServer(
        webConfigFile,
        auth ? withMetricsAuth(auth, handler, logger) : handler,
        logger,
        reloadIntervalMs,
      );
      return listener.server;
    },
    closed() {
      listener?.stopReloading();
    },
  };
}
