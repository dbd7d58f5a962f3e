// The status-write sources (the sidecar API proxy and the audit webhook
// receiver) as one part of the app. Their code is loaded only when the
// configuration turns one on: most deployments never do. Under the supervisor
// the proxy runs in a process of its own, and this part reads its counters.
import type { Config } from "../config/schema.ts";
import type { ProxyProcess } from "../statuswrites/process/remote-sources.ts";
import type { RunningSources, StatusWriteSourceDeps } from "../statuswrites/sources.ts";
import { type Component, changed } from "./component.ts";

export interface StatusWriteSources extends Component {
  /** Where the API proxy listens, once started (undefined when it is off). */
  readonly proxyUrl: string | undefined;
  /** The CA of the API proxy's serving certificate (undefined when it is off or plain HTTP). */
  readonly proxyCaPem: string | undefined;
  /** Where the audit receiver listens, once started (undefined when it is off). */
  readonly auditUrl: string | undefined;
  /** Why /readyz must wait for these sources; undefined when it need not. */
  notReady(): string | undefined;
}

export function buildStatusWriteSources(
  config: Config,
  deps: StatusWriteSourceDeps & { proxyProcess?: ProxyProcess | undefined },
): StatusWriteSources {
  let running: RunningSources | undefined;
  return {
    name: "status-write sources",
    get proxyUrl() {
      return running?.proxyUrl;
    },
    get proxyCaPem() {
      return running?.proxyCaPem;
    },
    get auditUrl() {
      return running?.auditUrl;
    },
    notReady: () => running?.notReady?.(),
    async start() {
      if (!config.apiProxy && !config.auditReceiver) return;
      if (config.apiProxy && deps.proxyProcess) {
        const { startWithProxyProcess } = await import("../statuswrites/process/remote-sources.ts");
        running = await startWithProxyProcess(config, deps, deps.proxyProcess);
        return;
      }
      const { startStatusWriteSources } = await import("../statuswrites/sources.ts");
      running = await startStatusWriteSources(config, deps);
    },
    async reload(next, previous) {
      if (changed(next, previous, (c) => [c.apiProxy, c.auditReceiver])) {
        deps.logger.warn("apiProxy and auditReceiver changes take effect after a restart");
      }
    },
    async stop() {
      await running?.close();
    },
  };
}
