// The import hook that hands KubeConfig's module stand-ins for the generated
// API and undici is process-wide while that module loads; it must not reach
// any other module importing the same names meanwhile (another part of the
// exporter loading at the same time). Its own file: KubeConfig loads once per
// process, and this test has to watch that first load.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as standIns from "../../../src/kube/client-node-stand-ins.ts";
import { kubeConfigClass } from "../../../src/kube/kubeconfig.ts";

test("while KubeConfig loads, undici imported by another module is the real one", async () => {
  const loading = kubeConfigClass();
  const undici = await import("undici");
  await loading;
  assert.notEqual(undici.Agent, standIns.Agent);
  await new undici.Agent().close();
});
