// The demo's configuration is valid and links every object of the page: the
// dashboard and trace templates (placeholders on Grafana's and Jaeger's
// default ports, which the demo itself does not start) fill in per object.
import assert from "node:assert/strict";
import { test } from "node:test";
import { OBJECT_UID } from "../../dashboards/src/index.ts";
import { demoConfigYaml, demoLinks } from "../../scripts/demo-fleet.ts";
import { parseConfigText } from "../../src/config/load.ts";
import { objectLinks } from "../../src/status/links.ts";
import { view } from "../support/views.ts";

test("the demo's configuration loads, with the page's dashboard and trace links", () => {
  const config = parseConfigText(demoConfigYaml("127.0.0.1:9184"), "demo-config.yaml", {});
  assert.equal(config.statusPage.dashboardUrl, demoLinks.dashboardUrl);
  assert.equal(config.statusPage.traceUrl, demoLinks.traceUrl);
  assert.ok(demoLinks.dashboardUrl.includes(`/d/${OBJECT_UID}?`), "the shipped object dashboard");
  const links = objectLinks(view({ name: "stuck-widget", traceId: "4bf92f3577b34da6a3ce929d0e0e4736" }), {
    dashboardUrl: config.statusPage.dashboardUrl,
    traceUrl: config.statusPage.traceUrl,
  });
  assert.equal(
    links.dashboard,
    "http://127.0.0.1:3000/d/cr-status-object?var-namespace=shop&var-kind=Widget&var-name=stuck-widget",
  );
  assert.equal(links.trace, "http://127.0.0.1:16686/trace/4bf92f3577b34da6a3ce929d0e0e4736");
});
