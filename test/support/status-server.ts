// The status routes served on a loopback port over a given view source, the
// way the exporter mounts them; stopped in the test's `after` hook.
import type { TestContext } from "node:test";
import Koa from "koa";
import { defaultStatusPage, type StatusPageConfig } from "../../src/config/status-page.ts";
import { listen } from "../../src/server/http.ts";
import { statusRoutes } from "../../src/server/status-routes.ts";
import type { ViewSource } from "../../src/status/view.ts";

export async function serveStatus(
  t: Pick<TestContext, "after">,
  source: ViewSource,
  /** Fixed overrides of the defaults, or a getter read on every request. */
  settings: Partial<StatusPageConfig> | (() => StatusPageConfig) = {},
): Promise<string> {
  const app = new Koa();
  const read = typeof settings === "function" ? settings : () => ({ ...defaultStatusPage, ...settings });
  app.use(statusRoutes({ source, settings: read }));
  const server = await listen(app, "127.0.0.1:0");
  t.after(() => server.close());
  return server.url;
}
