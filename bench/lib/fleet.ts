// The fleet: N widgets (fixture CRD widgets.example.com) spread over 50
// namespaces, each with labels, a last-applied annotation, a spec payload and a
// status of four conditions, about 3 KB as the API serves it. Created with
// bounded concurrency (POST, then a merge patch on /status) and a progress line.
import { ControlPlane, type RestClient } from "../../test/cluster/index.ts";

export const namespaceCount = 50;

/**
 * The control plane every benchmark builds its fleet on: request limits raised
 * and priority-and-fairness off, so creating and churning tens of thousands of
 * objects measures the subjects, not the apiserver's throttling.
 */
/** `featureGates`: e.g. ["ShardedListAndWatch=true"]. */
export function startBenchPlane(featureGates: readonly string[] = []): Promise<ControlPlane> {
  return ControlPlane.start({
    apiserverArgs: [
      "--max-requests-inflight=2000",
      "--max-mutating-requests-inflight=1000",
      "--enable-priority-and-fairness=false",
      ...(featureGates.length > 0 ? [`--feature-gates=${featureGates.join(",")}`] : []),
    ],
  });
}
export const conditionTypes = ["Ready", "Available", "Progressing", "Degraded"] as const;
const phases = ["Pending", "Provisioning", "Running", "Failed"] as const;

export interface Fleet {
  namespaces: string[];
  /** [namespace, name] of every widget, in creation order. */
  objects: [string, string][];
  /** Seconds spent creating each size step, keyed by the size reached. */
  createSeconds: Record<number, number>;
}

const stamp = (at: number): string => `${new Date(at).toISOString().slice(0, 19)}Z`;

export function widgetStatus(index: number, generation: number, flip = 0, at = Date.now()) {
  const ready = (index + flip) % 10 !== 0;
  return {
    observedGeneration: generation,
    phase: ready ? "Running" : phases[(index + flip) % phases.length],
    lastHeartbeatTime: stamp(at),
    replicas: 3,
    conditions: conditionTypes.map((type, i) => {
      const healthy = type === "Degraded" ? !ready : ready;
      const status = i === 2 ? "False" : healthy ? "True" : "False";
      return {
        type,
        status,
        observedGeneration: generation,
        lastTransitionTime: stamp(at - (index % 3600) * 1000),
        reason: status === "True" ? "Succeeded" : "Reconciling",
        message:
          status === "True"
            ? `Widget ${index} reconciled: all 3 replicas up to date and serving traffic`
            : `Widget ${index} waiting for 1 of 3 replicas to become available after rollout ${flip}`,
      };
    }),
  };
}

export function widgetBody(namespace: string, name: string, index: number) {
  const spec = { size: 3, image: "registry.example.com/widgets/server:v1.42.7", payload: "x".repeat(64) };
  const labels = {
    "app.kubernetes.io/name": "widget",
    "app.kubernetes.io/instance": name,
    "app.kubernetes.io/part-of": "bench-fleet",
    "app.kubernetes.io/managed-by": "bench",
    tier: index % 2 === 0 ? "frontend" : "backend",
  };
  const lastApplied = JSON.stringify({
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { name, namespace, labels },
    spec,
  });
  return {
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: {
      name,
      labels,
      annotations: { "kubectl.kubernetes.io/last-applied-configuration": lastApplied },
    },
    spec,
  };
}

export async function createNamespaces(plane: ControlPlane): Promise<string[]> {
  const namespaces: string[] = [];
  for (let i = 0; i < namespaceCount; i++)
    namespaces.push(await plane.createNamespace(`bench${String(i).padStart(2, "0")}`));
  return namespaces;
}

/** Runs `task(i)` for i in [from, to) with at most `concurrency` in flight. */
export async function pool(
  from: number,
  to: number,
  concurrency: number,
  task: (i: number) => Promise<void>,
): Promise<void> {
  let next = from;
  const workers = Array.from({ length: Math.min(concurrency, to - from) }, async () => {
    while (next < to) {
      const i = next++;
      await task(i);
    }
  });
  await Promise.all(workers);
}

async function retrying<T>(what: string, action: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await action();
    } catch (error) {
      const status = (error as { status?: number }).status;
      const retriable = status === undefined || status === 429 || status >= 500;
      if (!retriable || attempt >= 5) throw new Error(`${what}: ${String(error)}`);
      await new Promise((r) => setTimeout(r, 200 * attempt));
    }
  }
}

export function widgetPath(namespace: string, name?: string, status = false): string {
  return `/apis/example.com/v1/namespaces/${namespace}/widgets${name ? `/${name}` : ""}${status ? "/status" : ""}`;
}

/** Grows the fleet to `size` widgets (creating only the missing ones). */
export async function growFleet(
  rest: RestClient,
  fleet: Fleet,
  size: number,
  progress: (line: string) => void,
  concurrency = 32,
): Promise<void> {
  const from = fleet.objects.length;
  if (size <= from) return;
  const started = performance.now();
  let done = 0;
  let lastPrint = 0;
  await pool(from, size, concurrency, async (i) => {
    const namespace = fleet.namespaces[i % fleet.namespaces.length] as string;
    const name = `widget-${String(i).padStart(6, "0")}`;
    await retrying(`create ${namespace}/${name}`, () =>
      rest.create(widgetPath(namespace), widgetBody(namespace, name, i)),
    );
    await retrying(`status ${namespace}/${name}`, () =>
      rest.patch(widgetPath(namespace, name, true), { status: widgetStatus(i, 1) }, "merge"),
    );
    fleet.objects[i] = [namespace, name];
    done++;
    const now = performance.now();
    if (now - lastPrint > 1000 || from + done === size) {
      lastPrint = now;
      const rate = done / ((now - started) / 1000);
      const left = (size - from - done) / Math.max(rate, 1e-9);
      progress(`creating widgets: ${from + done}/${size} (${rate.toFixed(0)}/s, ~${left.toFixed(0)} s left)`);
    }
  });
  fleet.createSeconds[size] = (performance.now() - started) / 1000;
}
