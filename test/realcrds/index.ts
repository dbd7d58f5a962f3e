// The CustomResourceDefinitions of other projects, read at test time from the
// projects' own Go modules (pinned in modules/go.mod, downloaded by fetch.sh
// into the Go module cache; never copied into this repository).
import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import type { CrdManifest } from "../cluster/fixtures.ts";
import { type RealKind, realKinds } from "./catalog.ts";

export * from "./catalog.ts";

const here = dirname(fileURLToPath(import.meta.url));

export interface ServedModule {
  path: string;
  /** The version the module cache served (equal to the pinned one; fetch.sh fails otherwise). */
  version: string;
  /** The module's directory in the Go module cache. */
  dir: string;
}

let served: Map<string, ServedModule> | undefined;

/** Why the real CRDs cannot be read on this machine, or undefined when they can. */
export function realCrdsUnavailable(): string | undefined {
  const go = spawnSync("go", ["version"], { encoding: "utf8" });
  if (go.error || go.status !== 0) {
    return "Go is not installed: the CRDs of other projects come from their Go modules (install Go >= 1.26)";
  }
  return undefined;
}

/** Runs fetch.sh once per process: every pinned module, downloaded (a no-op when cached) and verified. */
export function servedModules(): Map<string, ServedModule> {
  if (served) return served;
  const output = execFileSync("bash", [join(here, "fetch.sh")], {
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
  });
  served = new Map();
  for (const line of output.trim().split("\n")) {
    const [path, version, dir] = line.split(" ");
    if (!path || !version || !dir)
      throw new Error(`fetch.sh printed an unexpected line: ${JSON.stringify(line)}`);
    served.set(path, { path, version, dir });
  }
  return served;
}

function moduleOf(kind: RealKind): ServedModule {
  const module = servedModules().get(kind.module);
  if (!module)
    throw new Error(`${kind.module} is not pinned in test/realcrds/modules/go.mod (needed for ${kind.id})`);
  return module;
}

/** The CRD of one catalog kind, parsed from its module's YAML. */
export function realCrd(kind: RealKind): CrdManifest {
  const path = join(moduleOf(kind).dir, kind.file);
  const documents = parseAllDocuments(readFileSync(path, "utf8"))
    .map((document) => document.toJS() as CrdManifest | null)
    .filter((document): document is CrdManifest => document?.metadata?.name === kind.crd);
  const [crd] = documents;
  if (!crd || documents.length !== 1) {
    throw new Error(
      `${path} holds ${documents.length} CustomResourceDefinitions named ${kind.crd}, expected 1`,
    );
  }
  if (crd.spec.names.kind !== kind.kind) {
    throw new Error(`${path}: ${kind.crd} is of kind ${crd.spec.names.kind}, the catalog says ${kind.kind}`);
  }
  return completeConversionService(crd, kind);
}

interface ConversionSpec {
  strategy?: string;
  webhook?: { clientConfig?: { service?: Record<string, unknown> } };
}

/**
 * Crossplane providers ship CRDs whose conversion webhook names no service:
 * the package manager fills in the provider's webhook service at install
 * time. The testbed does the same (no webhook runs there; objects are read
 * and written at the storage version, which needs no conversion).
 */
function completeConversionService(crd: CrdManifest, kind: RealKind): CrdManifest {
  const conversion = (crd.spec as { conversion?: ConversionSpec }).conversion;
  const service = conversion?.webhook?.clientConfig?.service;
  if (kind.project !== "crossplane" || conversion?.strategy !== "Webhook" || !service) return crd;
  if (service.name && service.namespace) return crd;
  const project = kind.module.split("/").at(-1) ?? kind.project;
  const filled = {
    ...service,
    name: service.name ?? project,
    namespace: service.namespace ?? "crossplane-system",
  };
  const spec: CrdManifest["spec"] & { conversion: ConversionSpec } = {
    ...crd.spec,
    conversion: {
      ...conversion,
      webhook: {
        ...conversion.webhook,
        clientConfig: { ...conversion.webhook?.clientConfig, service: filled },
      },
    },
  };
  return { ...crd, spec };
}

/** The CRDs of the given catalog ids (all of them when none are given), in catalog order. */
export function realCrds(ids?: readonly string[]): { kind: RealKind; crd: CrdManifest }[] {
  const wanted = ids ?? realKinds.map((kind) => kind.id);
  return wanted.map((id) => {
    const kind = realKinds.find((k) => k.id === id);
    if (!kind) throw new Error(`unknown real kind ${id}; known: ${realKinds.map((k) => k.id).join(", ")}`);
    return { kind, crd: realCrd(kind) };
  });
}

/** "module@version" per project module in use, for logs and reports. */
export function servedVersions(): string[] {
  return [...servedModules().values()].map((m) => `${m.path}@${m.version}`);
}

/**
 * Every CRD a project's modules ship beside its catalog kinds (the whole CRD
 * directory of each module), by metadata.name: what a real installation of
 * the project has, for checking that an example's RBAC covers what its
 * configuration selects.
 */
export function projectCrds(project: string): CrdManifest[] {
  const found = new Map<string, CrdManifest>();
  const seen = new Set<string>();
  for (const kind of realKinds.filter((k) => k.project === project)) {
    const directory = join(moduleOf(kind).dir, dirname(kind.file));
    if (seen.has(directory)) continue;
    seen.add(directory);
    for (const file of readdirSync(directory)
      .filter((f) => f.endsWith(".yaml"))
      .sort()) {
      for (const document of parseAllDocuments(readFileSync(join(directory, file), "utf8"))) {
        const crd = document.toJS() as CrdManifest | null;
        if ((crd as { kind?: string } | null)?.kind !== "CustomResourceDefinition" || !crd) continue;
        found.set(crd.metadata.name, completeConversionService(crd, kind));
      }
    }
  }
  if (found.size === 0) throw new Error(`no CRDs for project ${project}`);
  return [...found.values()];
}
