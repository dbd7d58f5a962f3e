// The status-write sources of an exporter whose API proxy runs in a process of
// its own (started by the supervisor): the audit receiver runs here as
// before, and the proxy's counts are read from the proxy process at each
// scrape (proxy-counters.ts). /readyz waits for the proxy's first answer.
import {
  type RunningSources,
  type StatusWriteSourceDeps,
  type StatusWriteSourceSettings,
  startStatusWriteSources,
} from "../sources.ts";
import { readProxyCounters } from "./counters-channel.ts";
import { mergeProxyFamilies, ProxyCounters, registerProxyProcessMetrics } from "./proxy-counters.ts";

export interface ProxyProcess {
  /** The socket the proxy process serves its counters on. */
  socketPath: string;
  /** How often the supervisor restarted this exporter process before. */
  exporterRestarts: number;
  /** How long a scrape waits for the proxy's counters (default 2 s). */
  readTimeoutMs?: number;
  /** How often the proxy is asked until it first answers (default 250 ms). */
  firstAnswerPollMs?: number;
}

export async function startWithProxyProcess(
  settings: StatusWriteSourceSettings,
  deps: StatusWriteSourceDeps,
  proxyProcess: ProxyProcess,
): Promise<RunningSources> {
  // Makes the families (the audit receiver's, when configured); the proxy's samples are added to them.
  const local = await startStatusWriteSources({ ...settings, apiProxy: undefined }, deps);
  const timeoutMs = proxyProcess.readTimeoutMs ?? 2000;
  const counters = new ProxyCounters({
    read: () => readProxyCounters(proxyProcess.socketPath, timeoutMs),
    logger: deps.logger,
  });
  mergeProxyFamilies(deps.registry, settings.metricPrefix, counters);
  registerProxyProcessMetrics(deps.registry, settings.metricPrefix, counters, proxyProcess.exporterRestarts);
  const poll = setInterval(() => {
    void counters.refresh().then(() => {
      if (counters.snapshot) clearInterval(poll);
    });
  }, proxyProcess.firstAnswerPollMs ?? 250);
  poll.unref();
  void counters.refresh();
  return {
    get proxyUrl() {
      return counters.snapshot?.url;
    },
    get proxyCaPem() {
      return counters.snapshot?.caPem;
    },
    auditUrl: local.auditUrl,
    notReady: () => (counters.snapshot ? undefined : "the API proxy process has not answered yet"),
    async close() {
      clearInterval(poll);
      await local.close();
    },
  };
}
