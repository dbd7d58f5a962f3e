// `npm run demo`: a local cluster to look at. Starts the test control plane
// (real etcd + kube-apiserver), installs the fixture CRDs, runs a small
// simulated controller that moves widgets through their states (rollouts, a
// stuck one, a flapping one, a hot-looping one that rewrites status for
// nothing), and runs the exporter against it until Ctrl-C.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { ControlPlane, installCrd } from "../test/cluster/index.ts";
import { createDemoFleet, demoConfigYaml, demoSims, demoTick } from "./demo-fleet.ts";

const log = (msg: string): void => {
  process.stderr.write(`demo: ${msg}\n`);
};

const listen = process.env.DEMO_LISTEN ?? "127.0.0.1:9184";
log("starting a local control plane (etcd + kube-apiserver)...");
const plane = await ControlPlane.start();
log(`control plane ready in ${plane.startMs} ms at ${plane.server}`);
const rest = plane.admin.rest;
for (const crd of ["widgets", "gadgets", "sprockets"] as const) await installCrd(rest, crd);
const sims = demoSims();
await createDemoFleet(rest, sims);
const config = join(plane.directory, "demo-config.yaml");
writeFileSync(config, demoConfigYaml(listen));
log(`created ${sims.length} widgets in shop, payments and search, and one cluster-scoped gadget`);
const started = new Date();

const exporter = spawn(
  process.execPath,
  [
    join(import.meta.dirname, "..", "src", "main.ts"),
    "--kubeconfig",
    plane.kubeconfigPath,
    "--config",
    config,
  ],
  { stdio: "inherit" },
);
log(
  `exporter starting: the status page at http://${listen}/, metrics at http://${listen}/metrics, readiness at http://${listen}/readyz`,
);
log(`kubeconfig for kubectl: ${plane.kubeconfigPath}`);
log(
  `the page links each object to a Grafana on :3000 (dashboards/grafana/) and, with tracing on (OTEL_EXPORTER_OTLP_ENDPOINT), to a Jaeger on :16686; neither is started here: change statusPage in ${config}`,
);
log("press Ctrl-C to stop");

let stopping = false;
const stop = async (): Promise<void> => {
  if (stopping) return;
  stopping = true;
  log("stopping");
  exporter.kill("SIGTERM");
  await plane.stop();
  process.exit(0);
};
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());
exporter.on("exit", (code) => {
  if (!stopping) {
    log(`exporter exited with code ${code}`);
    void stop();
  }
});

const maxTicks = Number(process.env.DEMO_TICKS ?? Number.POSITIVE_INFINITY);
for (let tick = 1; tick <= maxTicks && !stopping; tick++) {
  await demoTick(rest, sims, tick, { started, specChangeChance: 0.1 }, (sim, error) =>
    log(`controller step failed for ${sim.ns}/${sim.name}: ${error.message}`),
  );
  await sleep(2_000);
}
await stop();
