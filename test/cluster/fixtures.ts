// Fixture CRDs (test/fixtures/crds) and helpers that create custom resources,
// change their spec and write their status the way a controller does.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import type { RestClient } from "./rest.ts";

const crdDirectory = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "crds");

/** The fixture CRDs: see the comment at the top of each YAML file. */
export const fixtureCrds = {
  /** Namespaced, status subresource, conditions, observedGeneration, phase enum, heartbeat. */
  widgets: "widgets.example.com",
  /** Cluster-scoped, status subresource, conditions. */
  gadgets: "gadgets.example.com",
  /** Namespaced, no status subresource: status writes bump generation. */
  sprockets: "sprockets.example.com",
  /** Namespaced, served as v1beta1 and v1. */
  gizmos: "gizmos.example.com",
} as const;

export type FixtureName = keyof typeof fixtureCrds;

export interface CrdManifest {
  metadata: { name: string; labels?: Record<string, string> };
  spec: {
    group: string;
    scope: "Namespaced" | "Cluster";
    names: { plural: string; kind: string };
    versions: { name: string; storage: boolean }[];
  };
  [key: string]: unknown;
}

export function loadFixtureCrd(name: FixtureName): CrdManifest {
  return parse(readFileSync(join(crdDirectory, `${fixtureCrds[name]}.yaml`), "utf8")) as CrdManifest;
}

/** Identifies one resource type, and optionally one object of it. */
export interface ResourceRef {
  group: string;
  version: string;
  plural: string;
  namespace?: string;
  name?: string;
}

export function refFor(name: FixtureName, namespace?: string, objectName?: string): ResourceRef {
  const crd = loadFixtureCrd(name);
  const storage = crd.spec.versions.find((v) => v.storage) ?? crd.spec.versions[0];
  if (!storage) throw new Error(`fixture ${name} has no versions`);
  const ref: ResourceRef = { group: crd.spec.group, version: storage.name, plural: crd.spec.names.plural };
  if (crd.spec.scope === "Namespaced" && namespace) ref.namespace = namespace;
  if (objectName) ref.name = objectName;
  return ref;
}

/** The REST path of a collection (no name) or of one object. */
export function crPath(ref: ResourceRef, subresource?: "status"): string {
  let path = `/apis/${ref.group}/${ref.version}`;
  if (ref.namespace) path += `/namespaces/${ref.namespace}`;
  path += `/${ref.plural}`;
  if (ref.name) path += `/${ref.name}`;
  if (subresource) path += `/${subresource}`;
  return path;
}

const crdsPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

interface CrdStatus {
  status?: { conditions?: { type: string; status: string }[] };
}

/** Creates a CRD and waits until it is Established (served). */
export async function installCrd(rest: RestClient, crd: CrdManifest | FixtureName): Promise<CrdManifest> {
  const manifest = typeof crd === "string" ? loadFixtureCrd(crd) : crd;
  await rest.create(crdsPath, manifest);
  await waitUntil(`CRD ${manifest.metadata.name} Established`, 30_000, async () => {
    const current = await rest.get<CrdStatus>(`${crdsPath}/${manifest.metadata.name}`);
    return current.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") === true;
  });
  // Established means the API is registered; its storage may still answer 429
  // "storage is (re)initializing" for a moment. Wait until a list succeeds.
  const storage = manifest.spec.versions.find((v) => v.storage) ?? manifest.spec.versions[0];
  await waitUntil(`CRD ${manifest.metadata.name} storage ready`, 30_000, async () => {
    const response = await rest.raw(
      "GET",
      `/apis/${manifest.spec.group}/${storage?.name}/${manifest.spec.names.plural}`,
      undefined,
      {
        query: { limit: 1 },
      },
    );
    return response.status === 200;
  });
  return manifest;
}

/** Deletes a CRD (and so all its objects) and waits until it is gone. */
export async function deleteCrd(rest: RestClient, name: string): Promise<void> {
  await rest.delete(`${crdsPath}/${name}`);
  await waitUntil(`CRD ${name} deleted`, 60_000, async () => {
    const response = await rest.raw("GET", `${crdsPath}/${name}`);
    return response.status === 404;
  });
}

export interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

/** A metav1.Condition stamped now (whole seconds, as the API stores them). */
export function condition(
  type: string,
  status: Condition["status"],
  reason = status === "True" ? "Succeeded" : "InProgress",
  message = "",
  observedGeneration?: number,
  at: Date = new Date(),
): Condition {
  const lastTransitionTime = `${at.toISOString().slice(0, 19)}Z`;
  const result: Condition = { type, status, reason, message, lastTransitionTime };
  if (observedGeneration !== undefined) result.observedGeneration = observedGeneration;
  return result;
}

export interface CustomObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    uid: string;
    generation: number;
    resourceVersion: string;
    labels?: Record<string, string>;
    deletionTimestamp?: string;
    finalizers?: string[];
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

/** Creates a custom resource. A status in `body` is dropped by the API when the CRD has a status subresource. */
export function createCr(
  rest: RestClient,
  ref: ResourceRef,
  name: string,
  spec: Record<string, unknown> = {},
  metadata: Record<string, unknown> = {},
): Promise<CustomObject> {
  const kind = kindOf(ref);
  const collection: ResourceRef = { group: ref.group, version: ref.version, plural: ref.plural };
  if (ref.namespace) collection.namespace = ref.namespace;
  return rest.create<CustomObject>(crPath(collection), {
    apiVersion: `${ref.group}/${ref.version}`,
    kind,
    metadata: { ...metadata, name },
    spec,
  });
}

/** Changes spec with a merge patch; the API bumps metadata.generation. */
export function changeSpec(
  rest: RestClient,
  ref: ResourceRef,
  spec: Record<string, unknown>,
): Promise<CustomObject> {
  return rest.patch<CustomObject>(crPath(ref), { spec }, "merge");
}

/** Writes status with a merge patch on /status, as most controllers' Patch() does. */
export function patchStatus(
  rest: RestClient,
  ref: ResourceRef,
  status: Record<string, unknown>,
): Promise<CustomObject> {
  return rest.patch<CustomObject>(crPath(ref, "status"), { status }, "merge");
}

/**
 * Replaces status with a PUT on /status carrying the object's resourceVersion,
 * as controller-runtime's Status().Update() does: a stale object gets 409.
 */
export function updateStatus(
  rest: RestClient,
  ref: ResourceRef,
  object: CustomObject,
): Promise<CustomObject> {
  return rest.replace<CustomObject>(crPath(ref, "status"), object);
}

export function getCr(rest: RestClient, ref: ResourceRef): Promise<CustomObject> {
  return rest.get<CustomObject>(crPath(ref));
}

export function deleteCr(rest: RestClient, ref: ResourceRef): Promise<unknown> {
  return rest.delete(crPath(ref));
}

// The fixture kinds are the singular plural-less names; cached per plural.
const kinds = new Map<string, string>(
  (Object.keys(fixtureCrds) as FixtureName[]).map((name) => {
    const crd = loadFixtureCrd(name);
    return [`${crd.spec.group}/${crd.spec.names.plural}`, crd.spec.names.kind] as const;
  }),
);

function kindOf(ref: ResourceRef): string {
  const kind = kinds.get(`${ref.group}/${ref.plural}`);
  if (!kind) throw new Error(`unknown fixture resource ${ref.group}/${ref.plural}: pass a fixture ref`);
  return kind;
}

/** Registers the kind of a CRD made on the fly, so createCr() can build its objects. */
export function registerKind(crd: CrdManifest): void {
  kinds.set(`${crd.spec.group}/${crd.spec.names.plural}`, crd.spec.names.kind);
}

export async function waitUntil(
  what: string,
  timeoutMs: number,
  probe: () => Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      if (await probe()) return;
    } catch (error) {
      lastError = error;
    }
    await sleep(50);
  }
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ""}`,
  );
}
