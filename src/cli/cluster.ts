// One-shot cluster access for the CLI: the configuration's resource plans
// from the CRDs in the cluster, and one paged list per resource projected with
// the exporter's own code. No watch, no server. A resource whose list fails is
// reported and the others are still shown.
import { listPath } from "../collectors/collector-parts.ts";
import { type CollectorPlan, planFromCrds, planStatic, replan, watchScope } from "../collectors/selection.ts";
import type { Config } from "../config/schema.ts";
import { type CrdSummary, summarizeCrd } from "../core/detect/crd.ts";
import { addSample, decideWithSamples, noSamples, type Samples } from "../core/detect/learn.ts";
import { ProjectionError, projectObject } from "../core/project/project.ts";
import type { ObjectState } from "../core/state.ts";
import { createKubeClient, type KubeClient } from "../kube/client.ts";
import { loadKubeConfig } from "../kube/kubeconfig.ts";
import { namesKind } from "../status/kind-name.ts";

export interface ClusterOptions {
  kubeconfig: string | undefined;
  context: string | undefined;
}

export async function connect(options: ClusterOptions): Promise<KubeClient> {
  return createKubeClient(await loadKubeConfig({ path: options.kubeconfig, context: options.context }));
}

interface ListBody {
  items?: unknown[];
  metadata?: { continue?: string; remainingItemCount?: number };
  message?: string;
}

/** GET a list path page by page; `onPage` sees each page. Throws with the API's message on failure. */
export async function listPages(
  client: KubeClient,
  path: string,
  query: Record<string, string | undefined>,
  /** Returns false to stop paging. */
  onPage: (body: ListBody) => boolean | undefined,
  pageSize = 500,
): Promise<void> {
  let token: string | undefined;
  do {
    const { status, body } = await client.request<ListBody>("GET", path, {
      query: { ...query, limit: pageSize, continue: token },
    });
    if (status !== 200) {
      throw new Error(`GET ${path}: HTTP ${status}${body?.message ? `: ${body.message}` : ""}`);
    }
    if (onPage(body) === false) return;
    token = body.metadata?.continue || undefined;
  } while (token);
}

export async function listCrds(client: KubeClient): Promise<CrdSummary[]> {
  const crds: CrdSummary[] = [];
  await listPages(client, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {}, (page) => {
    for (const raw of page.items ?? []) {
      const crd = summarizeCrd(raw);
      if (crd) crds.push(crd);
    }
    return true;
  });
  return crds;
}

/** The same plans the exporter would run with this configuration against this cluster. */
export async function resourcePlans(
  client: KubeClient,
  config: Config,
): Promise<{ plans: CollectorPlan[]; crds: CrdSummary[] }> {
  if (!config.crdDiscovery) return { plans: planStatic(config.resources), crds: [] };
  const crds = await listCrds(client);
  return { plans: planFromCrds(config.resources, crds), crds };
}

/**
 * The plan decided again from listed objects, as the running exporter learns
 * from its first ones (the learning bound applies: later objects count for nothing).
 */
export function learned(plan: CollectorPlan, objects: readonly unknown[]): CollectorPlan {
  if (!plan.detection || !plan.shape?.learning) return plan;
  const samples = objects.reduce<Samples>((learnt, raw) => addSample(learnt, raw), noSamples);
  return replan(plan, decideWithSamples(plan.detection, samples));
}

/** `kind`, `plural`, `plural.group` or `Kind.group`, case-insensitive. */
export function planMatchesKind(plan: CollectorPlan, wanted: string): boolean {
  return namesKind(plan.identity, wanted);
}

export interface ListScope {
  /** undefined: every namespace the configuration watches. */
  namespace: string | undefined;
  labelSelector: string | undefined;
}

/** The list paths of one plan: per configured namespace, or cluster-wide. */
export function listPaths(plan: CollectorPlan, namespace: string | undefined): string[] {
  const { identity } = plan;
  if (!identity.namespaced) return namespace === undefined ? [listPath(identity, "")] : [];
  const namespaces = namespace !== undefined ? [namespace] : watchScope(plan).namespaces;
  if (namespaces.length === 0) return [listPath(identity, "")];
  return namespaces.map((ns) => listPath(identity, ns));
}

export function combinedSelector(...selectors: (string | undefined)[]): string | undefined {
  const parts = selectors.filter((s): s is string => s !== undefined && s !== "");
  return parts.length > 0 ? parts.join(",") : undefined;
}

export interface ProjectedList {
  /** The plan after learning from the listed objects (see learned). */
  plan: CollectorPlan;
  states: ObjectState[];
  /** Objects without identity, skipped like the exporter skips them. */
  skipped: number;
}

/** Lists one resource (every path of it) and projects each object. */
export async function listProjected(
  client: KubeClient,
  plan: CollectorPlan,
  scope: ListScope,
): Promise<ProjectedList> {
  const items: unknown[] = [];
  const watched = watchScope(plan);
  const labelSelector = combinedSelector(watched.labelSelector, scope.labelSelector);
  const query = { labelSelector, fieldSelector: watched.fieldSelector };
  for (const path of listPaths(plan, scope.namespace)) {
    await listPages(client, path, query, (page) => {
      items.push(...(page.items ?? []));
      return true;
    });
  }
  const decided = learned(plan, items);
  const result: ProjectedList = { plan: decided, states: [], skipped: 0 };
  for (const raw of items) {
    try {
      result.states.push(projectObject(raw, decided.projection));
    } catch (error) {
      if (!(error instanceof ProjectionError)) throw error;
      result.skipped++;
    }
  }
  return result;
}
