// Prometheus for tests: the real binaries of the Debian package.
import { after, afterEach, before } from "node:test";
import { type PrometheusOptions, PrometheusServer } from "./server.ts";

export * from "./binaries.ts";
export * from "./server.ts";

export interface PrometheusHandle {
  readonly server: PrometheusServer;
}

/**
 * Starts Prometheus before the tests of the calling file and stops it after
 * them; prints its log tail when a test fails. `options` is called in before(),
 * so it may use values (ports, rule files) prepared by earlier hooks.
 */
export function usePrometheus(
  options: () => PrometheusOptions | Promise<PrometheusOptions>,
): PrometheusHandle {
  let server: PrometheusServer | undefined;
  before(async () => {
    server = await PrometheusServer.start(await options());
  });
  afterEach((t) => {
    if (server && "passed" in t && !t.passed) console.error(`# prometheus log:\n${server.logTail()}`);
  });
  after(async () => {
    await server?.stop();
  });
  return {
    get server(): PrometheusServer {
      if (!server) throw new Error("prometheus is not started yet (use it inside a test or hook)");
      return server;
    },
  };
}
