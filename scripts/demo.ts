// `npm run demo`: a local cluster to look at. Starts the test control plane
// (real etcd + kube-apiserver), installs the fixture CRDs, runs a small
// simulated controller that moves widgets through their states (rollouts, a
// stuck one, a flapping one, a hot-looping one that rewrites status for
// nothing), and runs the exporter against it until Ctrl-C.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  type Condition,
  ControlPlane,
  changeSpec,
  condition,
  createCr,
  getCr,
  installCrd,
  patchStatus,
  type RestClient,
  refFor,
} from "../test/cluster/index.ts";

const log = (msg: string): void => {
  process.stderr.write(`demo: ${msg}\n`);
};

const listen = process.env.DEMO_LISTEN ?? "127.0.0.1:9184";
log("starting a local control plane (etcd + kube-apiserver)...");
const plane = await ControlPlane.start();
log(`control plane ready in ${plane.startMs} ms at ${plane.server}`);
const rest = plane.admin.rest;
for (const crd of ["widgets", "gadgets", "sprockets"] as const) await installCrd(rest, crd);
const namespaces = ["shop", "payments", "search"];
for (const ns of namespaces) await rest.create("/api/v1/namespaces", { metadata: { name: ns } });

const config = join(plane.directory, "demo-config.yaml");
writeFileSync(
  config,
  `listen: ${listen}
resources:
  - group: example.com
    resource: widgets
    heartbeatField: status.lastHeartbeatTime
    phaseTransitions:
      Pending: [Provisioning]
      Provisioning: [Running, Failed]
      Running: [Failed, Provisioning]
      Failed: [Provisioning]
    labels:
      - fromLabel: app
        name: app
  - groups: ["example.com"]
`,
);

const now = (): string => `${new Date().toISOString().slice(0, 19)}Z`;
const ready = (
  status: Condition["status"],
  reason: string,
  message: string,
  generation: number,
  since?: Date,
): Condition => condition("Ready", status, reason, message, generation, since);
const started = new Date();

interface Sim {
  ns: string;
  name: string;
  behaviour: "healthy" | "stuck" | "flapping" | "hot-loop";
}
const sims: Sim[] = [];
for (const ns of namespaces) {
  for (let i = 1; i <= 4; i++) sims.push({ ns, name: `widget-${i}`, behaviour: "healthy" });
}
sims.push({ ns: "shop", name: "stuck-widget", behaviour: "stuck" });
sims.push({ ns: "payments", name: "flappy-widget", behaviour: "flapping" });
sims.push({ ns: "search", name: "busy-widget", behaviour: "hot-loop" });

for (const sim of sims) {
  await createCr(
    rest,
    refFor("widgets", sim.ns, sim.name),
    sim.name,
    { size: 1 },
    { labels: { app: sim.ns } },
  );
}
await createCr(rest, refFor("gadgets", undefined, "cluster-gadget"), "cluster-gadget");
await patchStatus(rest, refFor("gadgets", undefined, "cluster-gadget"), {
  observedGeneration: 1,
  conditions: [condition("Ready", "True", "Ok", "", 1)],
});
log(`created ${sims.length} widgets in ${namespaces.join(", ")} and one cluster-scoped gadget`);

async function step(client: RestClient, sim: Sim, tick: number): Promise<void> {
  const ref = refFor("widgets", sim.ns, sim.name);
  const object = await getCr(client, ref);
  const generation = object.metadata.generation;
  const status = object.status ?? {};
  const observed = (status.observedGeneration as number | undefined) ?? 0;
  switch (sim.behaviour) {
    case "stuck":
      if (tick === 1) {
        await patchStatus(client, ref, {
          observedGeneration: generation,
          phase: "Provisioning",
          conditions: [ready("False", "ImagePullBackOff", "cannot pull example.com/widget:9.9", generation)],
        });
      }
      return;
    case "flapping":
      await patchStatus(client, ref, {
        observedGeneration: generation,
        phase: "Running",
        conditions: [
          tick % 2 === 0
            ? ready("True", "Healthy", "", generation)
            : ready("False", "ProbeFailed", "health probe timed out", generation),
        ],
      });
      return;
    case "hot-loop":
      // Rewrites the same status with a fresh message on every pass: no-op writes.
      await patchStatus(client, ref, {
        observedGeneration: generation,
        phase: "Running",
        conditions: [
          { ...ready("True", "Healthy", "", generation, started), message: `checked at ${now()}` },
        ],
      });
      return;
    default:
      if (observed < generation) {
        // A rollout: Provisioning first, Ready on the next pass.
        if (status.phase !== "Provisioning") {
          await patchStatus(client, ref, {
            phase: "Provisioning",
            lastHeartbeatTime: now(),
            conditions: [ready("False", "Progressing", `rolling out generation ${generation}`, observed)],
          });
        } else {
          await patchStatus(client, ref, {
            observedGeneration: generation,
            phase: "Running",
            lastHeartbeatTime: now(),
            conditions: [ready("True", "Healthy", "", generation)],
          });
        }
      } else {
        await patchStatus(client, ref, { lastHeartbeatTime: now() });
        // Now and then somebody changes the spec.
        if (Math.random() < 0.1) await changeSpec(client, ref, { size: 1 + Math.floor(Math.random() * 5) });
      }
  }
}

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
log(`exporter starting: metrics at http://${listen}/metrics, readiness at http://${listen}/readyz`);
log(`kubeconfig for kubectl: ${plane.kubeconfigPath}`);
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
  for (const sim of sims) {
    try {
      await step(rest, sim, tick);
    } catch (error) {
      log(`controller step failed for ${sim.ns}/${sim.name}: ${(error as Error).message}`);
    }
  }
  await sleep(2_000);
}
await stop();
