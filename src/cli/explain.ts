// `cr-status-exporter explain`: for the current configuration and cluster,
// which CRDs are watched and how (version, scope, where conditions,
// observedGeneration and phase are read, the readiness condition, and why:
// detection decides from the schema and a sample of objects, as the exporter
// does), and the series each kind would cost (objects × series per object) —
// a cardinality preview before deploying.
import { parseArgs } from "node:util";
import { stringify } from "yaml";
import { type CollectorPlan, missingExplicit, watchScope } from "../collectors/selection.ts";
import { loadConfigFile } from "../config/load.ts";
import { type CelFailure, type CelOutcome, type CelProgram, readinessCelField } from "../core/cel.ts";
import type { CrdSummary } from "../core/detect/crd.ts";
import { type ShapeLogFields, shapeLogFields } from "../core/detect/describe.ts";
import type { FieldPath } from "../core/detect/shape.ts";
import { isRecord } from "../core/json-record.ts";
import { ProjectionError, projectObject } from "../core/project/project.ts";
import type { FamilyRules } from "../core/series/family-selection.ts";
import type { ObjectState } from "../core/state.ts";
import type { KubeClient } from "../kube/client.ts";
import { connect, learned, listPages, listPaths, resourcePlans } from "./cluster.ts";
import type { CliIo } from "./io.ts";
import { seriesPerObject } from "./series-estimate.ts";
import { UsageError } from "./status.ts";
import { formatTable } from "./status-output.ts";

export const explainUsage = `Usage: cr-status-exporter explain [flags]

Shows which CRDs the configuration selects in the current cluster, where each one's conditions,
observedGeneration and phase are read, the estimated series per kind (objects × series per object), and
what each CEL expression (readiness.cel, values[].cel) returns on the sampled objects.

  -o, --output FORMAT      table (default), json or yaml
      --sample N           objects per resource rendered to measure series per object (default 50)
      --config PATH        configuration file (default: every CRD)
      --kubeconfig PATH, --context NAME
  -h, --help
`;

export interface FieldSource {
  path: string | null;
  /** config, schema, or default (with why). */
  from: string;
}

export interface ExplainedResource {
  resource: string;
  kind: string;
  version: string;
  scope: "Namespaced" | "Cluster";
  statusSubresource: boolean;
  mode: "objects" | "aggregate";
  /** null: the kind has no readiness condition (its phase decides, else observedGeneration), or readiness.cel decides. */
  readyCondition: string | null;
  /** config, schema, observed, pending, none, states, default (no CRD read), or cel. */
  readinessSource: string;
  conditions: FieldSource;
  observedGeneration: FieldSource;
  phase: FieldSource & { phases: string[] };
  objects: number;
  seriesPerObject: number;
  estimatedSeries: number;
  /** What detection decided and why (from the schema and the sampled objects); null without CRD discovery. */
  detected: ShapeLogFields | null;
  /**
   * Numeric and date-time fields the schema declares under status that
   * nothing exports yet: each would add one cr_value series per object.
   */
  valueCandidates: { path: string; type: "number" | "timestamp" }[];
  /**
   * The schema's candidates exported by `valueCandidates: export`, with their
   * `field` label: one cr_value series per object each (in the estimate).
   */
  exportedCandidates: { path: string; type: "number" | "timestamp"; field: string }[];
  /** Each CEL expression of the kind evaluated on the sampled objects, as the exporter would. */
  cel: CelExplained[];
}

/** A CEL expression's results on the sampled objects: the first few, and the failures by reason. */
export interface CelExplained {
  /** `readiness.cel`, or the value's name (cr_value's field). */
  field: string;
  expression: string;
  evaluated: number;
  /** The first objects' results: a verdict, a number, `no value` (null), or `error <reason>: <message>`. */
  sample: { object: string; result: string }[];
  failed: number;
  /** Failures by reason (cr_exporter_cel_errors_total's). */
  errors: Partial<Record<CelFailure, number>>;
}

/** Objects whose result explain shows per expression. */
export const celSampleSize = 5;

export interface Explanation {
  resources: ExplainedResource[];
  totalSeries: number;
  notSelected: { crd: string; why: string }[];
  missing: string[];
}

function source(plan: CollectorPlan, configured: string | undefined, found: FieldPath | undefined): string {
  if (configured !== undefined) return "config";
  if (found) return plan.detection?.openStatus ? "objects" : "schema";
  if (!plan.detection || plan.detection.openStatus) return "default (status is schemaless)";
  return "default (not in the schema)";
}

/** Objects in the resource (cheap: remainingItemCount when the API gives it) and a sample of them. */
async function countAndSample(
  client: KubeClient,
  plan: CollectorPlan,
  sampleSize: number,
): Promise<{ count: number; sample: unknown[] }> {
  let count = 0;
  const sample: unknown[] = [];
  const watched = watchScope(plan);
  for (const path of listPaths(plan, undefined)) {
    await listPages(
      client,
      path,
      { labelSelector: watched.labelSelector, fieldSelector: watched.fieldSelector },
      (page) => {
        const items = page.items ?? [];
        count += items.length;
        for (const raw of items) {
          if (sample.length >= sampleSize) break;
          sample.push(raw);
        }
        const remaining = page.metadata?.remainingItemCount;
        if (remaining !== undefined) {
          count += remaining;
          return false;
        }
      },
      Math.max(1, sampleSize),
    );
  }
  return { count, sample };
}

function project(plan: CollectorPlan, sample: readonly unknown[]): ObjectState[] {
  const states: ObjectState[] = [];
  for (const raw of sample) {
    try {
      states.push(projectObject(raw, plan.projection));
    } catch (error) {
      if (!(error instanceof ProjectionError)) throw error;
    }
  }
  return states;
}

function explainPlan(
  schemaPlan: CollectorPlan,
  counted: { count: number; sample: unknown[] },
  prefix: string,
  now: number,
  globalRules: FamilyRules,
): ExplainedResource {
  const plan = learned(schemaPlan, counted.sample);
  const o = plan.options;
  const shape = plan.shape;
  const perObject = seriesPerObject(plan, project(plan, counted.sample), prefix, now, globalRules);
  const generationPath = shape?.observedGeneration.path;
  return {
    resource: plan.key.replace(/^(.*)\/(.*)$/, "$2.$1"),
    kind: plan.identity.kind,
    version: plan.identity.version,
    scope: plan.identity.namespaced ? "Namespaced" : "Cluster",
    statusSubresource: plan.statusSubresource,
    mode: o.mode,
    // A readiness expression decides: no condition does (the detected one only says where a lag is read).
    readyCondition: plan.projection.readiness ? null : (plan.readiness.readyCondition ?? null),
    readinessSource: plan.info.readiness_source,
    conditions: {
      path: plan.projection.conditionsPath?.join(".") ?? null,
      from: plan.projection.conditionsPath
        ? source(plan, o.conditionsPath, shape?.conditions?.path)
        : "none (no conditions in the schema)",
    },
    observedGeneration: {
      path: plan.generationSource === "condition" ? null : plan.projection.observedGenerationPath.join("."),
      from:
        plan.generationSource === "condition"
          ? "the ready condition's own observedGeneration"
          : source(plan, o.observedGenerationPath, generationPath),
    },
    phase: {
      path: plan.projection.phasePath?.join(".") ?? null,
      from: plan.projection.phasePath
        ? source(plan, o.phasePath, shape?.phase?.path)
        : "none (no phase in the schema)",
      phases: plan.phases,
    },
    objects: counted.count,
    seriesPerObject: Math.round(perObject * 10) / 10,
    estimatedSeries: Math.round(counted.count * perObject),
    detected: shape ? shapeLogFields(shape) : null,
    valueCandidates: [...plan.valueCandidates],
    exportedCandidates: plan.exportedCandidates.map((c) => ({ path: c.path, type: c.type, field: c.name })),
    cel: celResults(plan, counted.sample),
  };
}

function shown(outcome: CelOutcome<string | number | null>): string {
  if (!outcome.ok) return `error ${outcome.reason}: ${outcome.message}`;
  return outcome.value === null ? "no value" : String(outcome.value);
}

/** Each CEL expression of the plan on the sampled objects (those with metadata: the exporter skips the rest). */
function celResults(plan: CollectorPlan, sample: readonly unknown[]): CelExplained[] {
  const programs: (readonly [string, CelProgram<string | number | null>])[] = [
    ...(plan.projection.readiness ? [[readinessCelField, plan.projection.readiness] as const] : []),
    ...plan.projection.values.flatMap((v) => (v.cel ? [[v.name, v.cel] as const] : [])),
  ];
  const objects = sample.filter((raw) => isRecord(raw) && isRecord(raw.metadata)) as Record<
    string,
    unknown
  >[];
  return programs.map(([field, program]) => {
    const result: CelExplained = {
      field,
      expression: program.source,
      evaluated: objects.length,
      sample: [],
      failed: 0,
      errors: {},
    };
    for (const object of objects) {
      const outcome = program.evaluate(object);
      if (!outcome.ok) {
        result.failed++;
        result.errors[outcome.reason] = (result.errors[outcome.reason] ?? 0) + 1;
      }
      if (result.sample.length < celSampleSize) {
        const { namespace, name } = object.metadata as { namespace?: unknown; name?: unknown };
        const id = `${typeof namespace === "string" && namespace ? `${namespace}/` : ""}${String(name)}`;
        result.sample.push({ object: id, result: shown(outcome) });
      }
    }
    return result;
  });
}

/** The CEL section of the table output: per expression, its failures and the first results. */
function formatCel(resources: readonly ExplainedResource[]): string | undefined {
  const blocks = resources.flatMap((r) =>
    r.cel.map((c) => {
      const reasons = Object.entries(c.errors)
        .map(([reason, n]) => `${reason} ${n}`)
        .join(", ");
      const head = `  ${r.resource} ${c.field}: ${c.expression}\n    ${c.evaluated} evaluated, ${c.failed} failed${reasons ? ` (${reasons})` : ""}`;
      const rows = formatTable(c.sample.map((s) => [s.object, s.result]))
        .trimEnd()
        .split("\n")
        .map((line) => `    ${line}`);
      return [head, ...(c.sample.length > 0 ? rows : [])].join("\n");
    }),
  );
  return blocks.length > 0
    ? `CEL expressions on the sampled objects (the first ${celSampleSize} results; failures are Unknown or no series):\n${blocks.join("\n")}\n`
    : undefined;
}

function whyNotSelected(crd: CrdSummary): string {
  if (!crd.established) return "not established";
  if (!crd.versions.some((v) => v.served)) return "no served version";
  return "no resource selector matches it";
}

export async function explain(options: {
  config: string | undefined;
  kubeconfig: string | undefined;
  context: string | undefined;
  sampleSize: number;
  now: number;
}): Promise<Explanation> {
  const config = loadConfigFile(options.config).config;
  const client = await connect(options);
  const { plans, crds } = await resourcePlans(client, config);
  const resources: ExplainedResource[] = [];
  for (const plan of plans) {
    const counted = await countAndSample(client, plan, options.sampleSize);
    resources.push(explainPlan(plan, counted, config.metricPrefix, options.now, config.metrics));
  }
  const selected = new Set(plans.map((p) => `${p.identity.resource}.${p.identity.group}`));
  return {
    resources,
    totalSeries: resources.reduce((sum, r) => sum + r.estimatedSeries, 0),
    notSelected: crds
      .filter((c) => !selected.has(c.name))
      .map((c) => ({ crd: c.name, why: whyNotSelected(c) })),
    missing: config.crdDiscovery ? missingExplicit(config.resources, crds) : [],
  };
}

export function formatExplanation(e: Explanation): string {
  const field = (f: FieldSource): string => (f.path ? `${f.path} (${f.from})` : f.from);
  const watched = formatTable([
    [
      "RESOURCE",
      "KIND",
      "VERSION",
      "SCOPE",
      "STATUS-SUBRESOURCE",
      "READY",
      "CONDITIONS",
      "OBSERVED-GENERATION",
      "PHASE",
    ],
    ...e.resources.map((r) => [
      r.resource,
      r.kind,
      r.version,
      r.scope,
      r.statusSubresource ? "yes" : "no",
      `${r.readyCondition ?? "-"} (${r.readinessSource})`,
      field(r.conditions),
      field(r.observedGeneration),
      `${field(r.phase)}${r.phase.phases.length > 0 ? ` [${r.phase.phases.join(" ")}]` : ""}`,
    ]),
  ]);
  const series = formatTable([
    ["RESOURCE", "MODE", "OBJECTS", "SERIES/OBJECT", "ESTIMATED-SERIES"],
    ...e.resources.map((r) => [
      r.resource,
      r.mode,
      String(r.objects),
      String(r.seriesPerObject),
      String(r.estimatedSeries),
    ]),
    ["TOTAL", "", String(e.resources.reduce((s, r) => s + r.objects, 0)), "", String(e.totalSeries)],
  ]);
  const lines = [
    e.resources.length > 0 ? `Watched resources:\n${watched}` : "No resource is selected.\n",
    `Estimated per-object series (objects × series per object; counters and histograms of the exporter itself not included):\n${series}`,
  ];
  if (e.notSelected.length > 0)
    lines.push(`Not selected:\n${e.notSelected.map((n) => `  ${n.crd}: ${n.why}`).join("\n")}\n`);
  if (e.missing.length > 0)
    lines.push(`Configured but not installed:\n${e.missing.map((m) => `  ${m}`).join("\n")}\n`);
  const cel = formatCel(e.resources);
  if (cel) lines.push(cel);
  lines.push(...formatCandidates(e.resources));
  return lines.join("\n");
}

const typed = (c: { path: string; type: string }): string =>
  `${c.path}${c.type === "timestamp" ? " (timestamp)" : ""}`;

/** The value candidates, exported and proposed, each with its cost: one cr_value series per object. */
function formatCandidates(resources: readonly ExplainedResource[]): string[] {
  const cost = (r: ExplainedResource): string => `(+${r.objects} series each)`;
  const exported = resources.filter((r) => r.exportedCandidates.length > 0);
  const proposed = resources.filter((r) => r.valueCandidates.length > 0);
  const out: string[] = [];
  if (exported.length > 0)
    out.push(
      `Schema fields exported by valueCandidates: export (cr_value{field}, one series per object each, in the estimate above):\n${exported
        .map(
          (r) =>
            `  ${r.resource}: ${r.exportedCandidates.map((c) => `${c.field} = ${typed(c)}`).join(", ")} ${cost(r)}`,
        )
        .join("\n")}\n`,
    );
  if (proposed.length > 0)
    out.push(
      `Numeric fields that values: could export (cr_value{field}, one series per object each; or valueCandidates: export):\n${proposed
        .map((r) => `  ${r.resource}: ${r.valueCandidates.map(typed).join(", ")} ${cost(r)}`)
        .join("\n")}\n`,
    );
  return out;
}

function parseExplainFlags(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        output: { type: "string", short: "o", default: "table" },
        sample: { type: "string", default: "50" },
        config: { type: "string" },
        kubeconfig: { type: "string" },
        context: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export async function runExplain(argv: string[], io: CliIo): Promise<number> {
  const values = parseExplainFlags(argv);
  if (values.help) {
    io.stdout(explainUsage);
    return 0;
  }
  const output = values.output ?? "table";
  if (!["table", "json", "yaml"].includes(output))
    throw new UsageError(`--output: expected one of table, json, yaml, got "${output}"`);
  const sampleSize = Number(values.sample);
  if (!Number.isInteger(sampleSize) || sampleSize < 1 || sampleSize > 500)
    throw new UsageError(`--sample: expected an integer from 1 to 500, got "${values.sample}"`);
  const explanation = await explain({ ...values, sampleSize, now: io.now() } as Parameters<
    typeof explain
  >[0]);
  if (output === "json") io.stdout(`${JSON.stringify(explanation, null, 2)}\n`);
  else if (output === "yaml") io.stdout(stringify(explanation));
  else io.stdout(formatExplanation(explanation));
  return 0;
}
