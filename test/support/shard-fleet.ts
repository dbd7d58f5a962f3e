// Shards as processes: the exporter run as `node src/main.ts` with sharding
// flags, its /metrics split into per-object lines by object, and the
// comparison of several shards' union with one unsharded process.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { stringify } from "yaml";
import { objectFamilies } from "../../src/core/series/catalog.ts";
import { fnv1a64, ownsUid, type ShardAssignment } from "../../src/core/shard.ts";
import {
  type ControlPlane,
  changeSpec,
  condition,
  createCr,
  deleteCr,
  patchStatus,
  type RestClient,
  refFor,
} from "../cluster/index.ts";
import { type ExporterProcess, startExporterProcess } from "../deploy/exporter-process.ts";
import { eventually } from "./exporter.ts";

const repo = join(import.meta.dirname, "..", "..");
const main = join(repo, "src", "main.ts");

export interface RunningExporter {
  process: ExporterProcess;
  /** What it was started as, for messages. */
  label: string;
  metrics(): Promise<string>;
  /** Resolves once /readyz answers 200: every resource listed. */
  ready(): Promise<void>;
  stop(): Promise<void>;
}

/** Environment without OTEL_* (tracing only where a test asks for it) and without a kubeconfig of the runner's. */
function cleanEnvironment(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith("OTEL_") && key !== "KUBECONFIG") env[key] = value;
  }
  return { ...env, ...extra };
}

export async function startExporter(
  label: string,
  kubeconfig: string,
  config: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<RunningExporter> {
  const exporter = await startExporterProcess(
    ["node", main, "--kubeconfig", kubeconfig, "--config", config, "--listen", "127.0.0.1:0", ...args],
    { cwd: repo, env: cleanEnvironment(env), startTimeoutMs: 60_000 },
  );
  return {
    process: exporter,
    label,
    async metrics() {
      const response = await fetch(`${exporter.base}/metrics`);
      if (!response.ok) throw new Error(`${label}: /metrics answered ${response.status}`);
      return response.text();
    },
    async stop() {
      await exporter.stop();
    },
    async ready() {
      const deadline = Date.now() + 60_000;
      let last = "no answer";
      while (Date.now() < deadline) {
        try {
          const response = await fetch(`${exporter.base}/readyz`);
          if (response.ok) return;
          last = `${response.status} ${await response.text()}`;
        } catch (error) {
          last = String(error);
        }
        await sleep(100);
      }
      throw new Error(`${label}: /readyz not 200 within 60 s (last: ${last})`);
    },
  };
}

const objectFamilyNames = objectFamilies.map((f) => `cr_${f.suffix}{`);

/** The per-object lines of a scrape (every family of the per-object catalog, default prefix). */
export function objectLines(text: string): string[] {
  return text.split("\n").filter((line) => objectFamilyNames.some((name) => line.startsWith(name)));
}

/** The lines of the families named, whole (histogram series included). */
export function familyLines(text: string, names: readonly string[]): string[] {
  return text
    .split("\n")
    .filter(
      (line) =>
        !line.startsWith("#") && names.some((n) => line.startsWith(`${n}{`) || line.startsWith(`${n}_`)),
    );
}

export function labelOf(line: string, label: string): string | undefined {
  const match = new RegExp(`[{,]${label}="((?:[^"\\\\]|\\\\.)*)"`).exec(line);
  return match?.[1];
}

/** kind/namespace/name of a per-object line. */
export function objectOf(line: string): string {
  return `${labelOf(line, "kind")}/${labelOf(line, "namespace")}/${labelOf(line, "name")}`;
}

/** A line without its value. */
export function seriesOf(line: string): string {
  return line.slice(0, line.lastIndexOf(" "));
}

/** Values summed per series (label set), as `sum without (instance)` does over targets. */
export function summed(lineSets: readonly string[][]): Map<string, number> {
  const sums = new Map<string, number>();
  for (const line of lineSets.flat()) {
    const series = seriesOf(line);
    sums.set(series, (sums.get(series) ?? 0) + Number(line.slice(line.lastIndexOf(" ") + 1)));
  }
  return sums;
}

/** What differs between two sorted line lists, for failure messages (first few of each side). */
export function difference(expected: readonly string[], actual: readonly string[], limit = 8): string {
  const want = new Set(expected);
  const have = new Set(actual);
  const missing = expected.filter((l) => !have.has(l));
  const extra = actual.filter((l) => !want.has(l));
  return (
    `${missing.length} missing, ${extra.length} unexpected` +
    (missing.length || extra.length ? "" : orderDifference(expected, actual)) +
    (missing.length ? `\n  missing:\n    ${missing.slice(0, limit).join("\n    ")}` : "") +
    (extra.length ? `\n  unexpected:\n    ${extra.slice(0, limit).join("\n    ")}` : "")
  );
}

/** Where two lists of the same lines part: a line twice, or another order. */
function orderDifference(expected: readonly string[], actual: readonly string[]): string {
  const at = expected.findIndex((l, i) => actual[i] !== l);
  if (at < 0 && expected.length === actual.length) return "";
  const index = at < 0 ? Math.min(expected.length, actual.length) : at;
  const around = (lines: readonly string[]) => lines.slice(Math.max(0, index - 2), index + 3).join("\n    ");
  return (
    `; ${expected.length} and ${actual.length} lines, first apart at line ${index}` +
    `\n  expected:\n    ${around(expected)}\n  actual:\n    ${around(actual)}`
  );
}

export interface UnionCheck {
  ok: boolean;
  /** Objects per shard. */
  perShard: number[];
  /** Objects exported by more than one shard. */
  twice: string[];
  message: string;
}

/**
 * Whether the shards' per-object lines, together, are exactly the reference's:
 * the same lines, no line and no object from two shards. `compareValues`
 * false compares the series (label sets) only.
 */
export function compareUnion(reference: string[], shards: string[][], compareValues = true): UnionCheck {
  const key = compareValues ? (l: string) => l : seriesOf;
  const owners = new Map<string, Set<number>>();
  shards.forEach((lines, shard) => {
    for (const line of lines) {
      const object = objectOf(line);
      const set = owners.get(object) ?? new Set<number>();
      set.add(shard);
      owners.set(object, set);
    }
  });
  const twice = [...owners].filter(([, set]) => set.size > 1).map(([object]) => object);
  const union = shards.flat().map(key).sort();
  const expected = reference.map(key).sort();
  const sameLines = union.length === expected.length && union.every((l, i) => l === expected[i]);
  const perShard = shards.map((lines) => new Set(lines.map(objectOf)).size);
  const ok = sameLines && twice.length === 0 && new Set(union).size === union.length;
  return {
    ok,
    perShard,
    twice,
    message: ok
      ? `${union.length} lines, objects per shard ${perShard.join(" + ")}`
      : `objects per shard ${perShard.join(", ")}; in two shards: ${twice.slice(0, 5).join(", ") || "none"}; ` +
        `${union.length - new Set(union).size} lines twice; ${difference(expected, union)}`,
  };
}

/** Runs `task` over `items`, `width` at a time. */
export async function inBatches<T>(
  items: readonly T[],
  width: number,
  task: (item: T) => Promise<unknown>,
): Promise<void> {
  for (let i = 0; i < items.length; i += width) await Promise.all(items.slice(i, i + width).map(task));
}

/** Creates widgets w0…w(count−1) in `namespace`, each with a status (every third Ready=False). */
export async function createWidgets(
  rest: RestClient,
  namespace: string,
  names: readonly string[],
): Promise<void> {
  await inBatches(names, 8, async (name) => {
    const ref = refFor("widgets", namespace, name);
    await createCr(rest, ref, name, { size: 1 });
    await patchStatus(rest, ref, widgetStatus(name, Number(name.replace(/\D/g, "")) % 3 !== 0, 1));
  });
}

export function widgetStatus(
  name: string,
  ready: boolean,
  observedGeneration: number,
): Record<string, unknown> {
  return {
    observedGeneration,
    phase: ready ? "Running" : "Provisioning",
    conditions: [
      condition("Ready", ready ? "True" : "False", ready ? "Succeeded" : `Waiting${name.length % 2}`),
      condition("Progressing", ready ? "False" : "True", ready ? "Done" : "InProgress"),
    ],
  };
}

/**
 * Churn over `names`: Ready flips, spec changes (a generation bump, then the
 * status catching up), deletions and new objects. Returns the names that
 * exist afterwards.
 */
export async function churn(
  rest: RestClient,
  namespace: string,
  names: readonly string[],
  round: number,
): Promise<string[]> {
  const flips = names.filter((_, i) => i % 3 === round % 3);
  const specs = names.filter((_, i) => i % 7 === round % 7);
  const deleted = names.filter((_, i) => i % 11 === round % 11);
  const created = Array.from({ length: 5 }, (_, i) => `r${round}n${i}`);
  await inBatches(flips, 8, (name) =>
    patchStatus(rest, refFor("widgets", namespace, name), widgetStatus(name, round % 2 === 0, 1)),
  );
  await inBatches(specs, 8, async (name) => {
    const ref = refFor("widgets", namespace, name);
    const changed = await changeSpec(rest, ref, { size: 10 + round });
    await patchStatus(rest, ref, widgetStatus(name, true, changed.metadata.generation));
  });
  await inBatches(deleted, 8, (name) => deleteCr(rest, refFor("widgets", namespace, name)));
  await createWidgets(rest, namespace, created);
  return [...names.filter((n) => !deleted.includes(n)), ...created];
}

/** Stops every exporter started through it when the test ends, pass or fail. */
export function exporters(t: { after(fn: () => Promise<void>): void }) {
  const running = new Set<RunningExporter>();
  t.after(async () => {
    await Promise.all([...running].map((e) => e.stop()));
  });
  return {
    async start(...args: Parameters<typeof startExporter>): Promise<RunningExporter> {
      const exporter = await startExporter(...args);
      running.add(exporter);
      return exporter;
    },
    async stop(exporter: RunningExporter): Promise<void> {
      running.delete(exporter);
      await exporter.stop();
    },
  };
}

export interface ApiWidget {
  metadata: { name: string; uid: string; generation: number };
  status?: { conditions?: { type: string; status: string; lastTransitionTime: string }[] };
}

/** Every widget as the API has it now. */
export async function apiWidgets(plane: ControlPlane, namespace: string): Promise<ApiWidget[]> {
  const list = await plane.admin.rest.get<{ items: ApiWidget[] }>(
    `/apis/example.com/v1/namespaces/${namespace}/widgets`,
  );
  return list.items;
}

/**
 * The reference's per-object lines once it shows what the API has now: every
 * widget with its generation and its Ready status and transition time, and
 * no other widget.
 */
export async function settledReference(plane: ControlPlane, reference: RunningExporter, namespace: string) {
  const widgets = await apiWidgets(plane, namespace);
  return eventually(
    `${reference.label} shows the ${widgets.length} widgets as the API has them`,
    async () => {
      const lines = objectLines(await reference.metrics());
      const has = new Set(lines);
      const objects = new Set(lines.filter((l) => l.includes('kind="Widget"')).map(objectOf));
      if (objects.size !== widgets.length) return false;
      for (const w of widgets) {
        const id = `group="example.com",kind="Widget",namespace="${namespace}",name="${w.metadata.name}"`;
        const ready = w.status?.conditions?.find((c) => c.type === "Ready");
        if (!has.has(`cr_metadata_generation{${id}} ${w.metadata.generation}`)) return false;
        if (ready && !has.has(`cr_condition{${id},type="Ready",status="${ready.status}"} 1`)) return false;
        const at = ready ? Date.parse(ready.lastTransitionTime) / 1000 : undefined;
        if (at && !has.has(`cr_condition_last_transition_timestamp_seconds{${id},type="Ready"} ${at}`))
          return false;
      }
      return lines;
    },
    90_000,
  );
}

/** Waits until the shards' union equals the reference's lines; returns the check. */
export async function unionEquals(reference: string[], shards: RunningExporter[], compareValues = true) {
  let last = "";
  try {
    return await eventually(
      "the shards' union to equal the unsharded process",
      async () => {
        const check = compareUnion(
          reference,
          await Promise.all(shards.map(async (s) => objectLines(await s.metrics()))),
          compareValues,
        );
        last = check.message;
        return check.ok && check;
      },
      60_000,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}\nlast comparison: ${last}`);
  }
}

/**
 * Waits until the union equals the reference by value on every line but those
 * matching `except` (counters of a process that restarted start at 0); returns
 * how many lines were compared.
 */
export async function unionEqualsExcept(
  reference: string[],
  shards: RunningExporter[],
  except: RegExp,
): Promise<number> {
  const keep = (lines: string[]) => lines.filter((l) => !except.test(l));
  let last = "";
  await eventually(
    "the shards' union to equal the unsharded process on every gauge",
    async () => {
      const c = compareUnion(
        keep(reference),
        await Promise.all(shards.map(async (s) => keep(objectLines(await s.metrics())))),
      );
      last = c.message;
      return c.ok && c;
    },
    60_000,
  ).catch((error: Error) => {
    throw new Error(`${error.message}\nlast comparison: ${last}`);
  });
  return keep(reference).length;
}

/** The relists of widgets a process started (its initial list included). */
export function relists(text: string): number {
  return familyLines(text, ["cr_exporter_relists_total"])
    .filter((l) => l.includes('kind="Widget"'))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
}

/** Writes an exporter configuration into the control plane's directory; returns its path. */
export function writeConfig(plane: ControlPlane, name: string, config: Record<string, unknown>): string {
  const path = join(plane.directory, `${name}.yaml`);
  writeFileSync(path, stringify(config));
  return path;
}

/**
 * The widgets a shard's scrape shows that are not the assignment's by their
 * uid (`uids`: name → uid, as the API has them), described; empty when it
 * holds only its own.
 */
export function notOwned(text: string, assignment: ShardAssignment, uids: Map<string, string>): string[] {
  const objects = new Set(
    objectLines(text)
      .filter((l) => l.includes('kind="Widget"'))
      .map(objectOf),
  );
  return [...objects].flatMap((object) => {
    const uid = uids.get(object.slice(object.lastIndexOf("/") + 1));
    if (uid === undefined) return [`${object} (not in the API)`];
    return ownsUid(assignment, uid) ? [] : [`${object} (uid ${uid}, hash ${fnv1a64(uid).join(":")})`];
  });
}

/** Who keeps the shard's widgets, as its cr_exporter_resource_shard_filter says (the filter labels at 1). */
export function shardFilterOf(text: string): string[] {
  return familyLines(text, ["cr_exporter_resource_shard_filter"])
    .filter((l) => l.includes('kind="Widget"') && l.endsWith(" 1"))
    .map((l) => labelOf(l, "filter") ?? "");
}

/**
 * Three shard processes exporting spans as `service`, each naming itself in
 * the resource attribute cr_status.test.shard (which process exported a span,
 * as Jaeger shows it), batches sent every 200 ms; stopped after the test,
 * resolved once all three are ready.
 */
export async function startTracingShards(
  t: { after(fn: () => Promise<void>): void },
  kubeconfig: string,
  config: string,
  service: string,
): Promise<RunningExporter[]> {
  const shards: RunningExporter[] = [];
  t.after(async () => {
    await Promise.all(shards.map((s) => s.stop()));
  });
  shards.push(
    ...(await Promise.all(
      [0, 1, 2].map((i) =>
        startExporter(`shard ${i}`, kubeconfig, config, ["--shard", String(i), "--total-shards", "3"], {
          OTEL_SERVICE_NAME: service,
          OTEL_RESOURCE_ATTRIBUTES: `cr_status.test.shard=${i}`,
          OTEL_BSP_SCHEDULE_DELAY: "200",
        }),
      ),
    )),
  );
  await Promise.all(shards.map((s) => s.ready()));
  return shards;
}
