// The demo's fleet and its simulated controller, as building blocks: `npm run
// demo` (scripts/demo.ts) runs them on a timer, the status-page end-to-end
// test runs the same ticks back to back. 12 healthy widgets that roll out
// their spec changes, one stuck on ImagePullBackOff, one flapping, one that
// rewrites its status in a hot loop, and a cluster-scoped gadget.
import {
  type Condition,
  changeSpec,
  condition,
  createCr,
  getCr,
  patchStatus,
  type RestClient,
  refFor,
} from "../test/cluster/index.ts";

export const demoNamespaces = ["shop", "payments", "search"] as const;

/**
 * Where the demo's page links each object: the shipped object dashboard in a
 * Grafana and traces in a Jaeger on their default local ports (placeholders:
 * the demo starts neither; `npm run demo` says so and how to change them).
 */
export const demoLinks = {
  dashboardUrl:
    "http://127.0.0.1:3000/d/cr-status-object?var-namespace={namespace}&var-kind={kind}&var-name={name}",
  traceUrl: "http://127.0.0.1:16686/trace/{traceId}",
};

/** The exporter's configuration for the demo fleet. */
export function demoConfigYaml(listen: string): string {
  return `listen: ${listen}
statusPage:
  dashboardUrl: "${demoLinks.dashboardUrl}"
  traceUrl: "${demoLinks.traceUrl}"
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
`;
}

export interface Sim {
  ns: string;
  name: string;
  behaviour: "healthy" | "stuck" | "flapping" | "hot-loop";
}

export function demoSims(): Sim[] {
  const sims: Sim[] = [];
  for (const ns of demoNamespaces) {
    for (let i = 1; i <= 4; i++) sims.push({ ns, name: `widget-${i}`, behaviour: "healthy" });
  }
  sims.push({ ns: "shop", name: "stuck-widget", behaviour: "stuck" });
  sims.push({ ns: "payments", name: "flappy-widget", behaviour: "flapping" });
  sims.push({ ns: "search", name: "busy-widget", behaviour: "hot-loop" });
  return sims;
}

export const stuckMessage = "cannot pull example.com/widget:9.9";

/** Creates the namespaces (when missing), the widgets and the gadget. The CRDs must be installed. */
export async function createDemoFleet(rest: RestClient, sims: readonly Sim[]): Promise<void> {
  for (const ns of new Set(sims.map((s) => s.ns))) {
    const exists = await rest.raw("GET", `/api/v1/namespaces/${ns}`);
    if (exists.status === 404) await rest.create("/api/v1/namespaces", { metadata: { name: ns } });
  }
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
}

/** Status writes of the hot-looping widget per pass. */
export const hotLoopWritesPerPass = 5;
/** Healthy widgets write their heartbeat every this many passes. */
export const heartbeatEveryPasses = 5;

const stamp = (): string => `${new Date().toISOString().slice(0, 19)}Z`;
const ready = (
  status: Condition["status"],
  reason: string,
  message: string,
  generation: number,
  since?: Date,
): Condition => condition("Ready", status, reason, message, generation, since);

export interface StepOptions {
  /** When the controller started: the hot loop has been Ready and the stuck widget stuck since then. */
  started: Date;
  /** Chance per healthy widget and tick that somebody changes its spec (0 in tests). */
  specChangeChance: number;
}

export const stuckWarningMessage = 'Failed to pull image "example.com/widget:9.9": manifest unknown';

/**
 * The Warning event a controller's events recorder writes about the stuck
 * widget: created on the first pass, its series.count raised on every later
 * one (cr_warning_events_total and the object's latest warning).
 */
async function stuckWarning(rest: RestClient, sim: Sim, uid: string, tick: number): Promise<void> {
  const collection = `/apis/events.k8s.io/v1/namespaces/${sim.ns}/events`;
  const name = `${sim.name}.pull-failed`;
  const now = new Date().toISOString().replace("Z", "000Z");
  if (tick === 1) {
    const created = await rest.raw("POST", collection, {
      metadata: { name },
      eventTime: now,
      reportingController: "example.com/widget-controller",
      reportingInstance: "widget-controller-0",
      action: "PullImage",
      type: "Warning",
      reason: "Failed",
      note: stuckWarningMessage,
      regarding: { apiVersion: "example.com/v1", kind: "Widget", namespace: sim.ns, name: sim.name, uid },
    });
    // Left from an earlier demo on the same cluster: counted on from there.
    if (created.status !== 409) return;
  }
  const current = await rest.raw<{ series?: { count?: number } }>("GET", `${collection}/${name}`);
  const count = Math.max(2, (current.body.series?.count ?? 1) + 1);
  await rest.patch(`${collection}/${name}`, { series: { count, lastObservedTime: now } });
}

/** One pass of the simulated controller over one widget (tick counts from 1). */
export async function stepSim(rest: RestClient, sim: Sim, tick: number, options: StepOptions): Promise<void> {
  const ref = refFor("widgets", sim.ns, sim.name);
  const object = await getCr(rest, ref);
  const generation = object.metadata.generation;
  const status = object.status ?? {};
  const observed = (status.observedGeneration as number | undefined) ?? 0;
  switch (sim.behaviour) {
    case "stuck":
      if (tick === 1) {
        await patchStatus(rest, ref, {
          observedGeneration: generation,
          phase: "Provisioning",
          conditions: [ready("False", "ImagePullBackOff", stuckMessage, generation, options.started)],
        });
      }
      await stuckWarning(rest, sim, object.metadata.uid, tick);
      return;
    case "flapping":
      await patchStatus(rest, ref, {
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
      // The "write status even when nothing changed" loop: the same status
      // with only a fresh timestamp (millisecond lastHeartbeatTime), several
      // times a pass. Each write is real (a new resourceVersion and watch
      // event) and a no-op status write; an identical patch would be dropped
      // by the apiserver unseen.
      for (let write = 0; write < hotLoopWritesPerPass; write++) {
        await patchStatus(rest, ref, {
          observedGeneration: generation,
          phase: "Running",
          lastHeartbeatTime: new Date().toISOString(),
          conditions: [ready("True", "Healthy", "", generation, options.started)],
        });
      }
      return;
    default:
      if (observed < generation) {
        // A rollout: Provisioning first, Ready on the next pass.
        if (status.phase !== "Provisioning") {
          await patchStatus(rest, ref, {
            phase: "Provisioning",
            lastHeartbeatTime: stamp(),
            conditions: [ready("False", "Progressing", `rolling out generation ${generation}`, observed)],
          });
        } else {
          await patchStatus(rest, ref, {
            observedGeneration: generation,
            phase: "Running",
            lastHeartbeatTime: stamp(),
            conditions: [ready("True", "Healthy", "", generation)],
          });
        }
      } else {
        // A heartbeat every few passes, as a controller with a resync period would write it.
        if (tick % heartbeatEveryPasses === 0) await patchStatus(rest, ref, { lastHeartbeatTime: stamp() });
        if (Math.random() < options.specChangeChance)
          await changeSpec(rest, ref, { size: 1 + Math.floor(Math.random() * 5) });
      }
  }
}

/** One pass over every widget; a failing step is reported and the others still run. */
export async function demoTick(
  rest: RestClient,
  sims: readonly Sim[],
  tick: number,
  options: StepOptions,
  onError: (sim: Sim, error: Error) => void,
): Promise<void> {
  for (const sim of sims) {
    try {
      await stepSim(rest, sim, tick, options);
    } catch (error) {
      onError(sim, error as Error);
    }
  }
}
