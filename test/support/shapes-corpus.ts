// The compatibility corpus (test/fixtures/crds-shapes): CRDs written for the
// tests, one per status shape found in the wild. See each file's header.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import type { CrdManifest } from "../cluster/fixtures.ts";

const directory = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "crds-shapes");

export const corpusGroup = "shapes.example.com";

/** Plural → the shape it stands for. */
export const corpusShapes = {
  rollouts: "nested conditions with observedGeneration beside them",
  beacons: "conditions without lastTransitionTime",
  runs: "Succeeded only (run to completion); v1 declares the types, v1alpha1 does not",
  pools: "Available only",
  exports: "phase only, with the status subresource",
  chores: "phase only, without the status subresource",
  blobs: "status preserves unknown fields",
  tickets: "observedGeneration only inside the conditions",
  mirrors: "nested observedGeneration away from the conditions",
  deliveries: "health and sync state strings (Argo CD-like)",
} as const;

export type CorpusName = keyof typeof corpusShapes;

export const corpusNames = Object.keys(corpusShapes) as CorpusName[];

export function loadCorpusCrd(name: CorpusName): CrdManifest {
  return parse(readFileSync(join(directory, `${name}.${corpusGroup}.yaml`), "utf8")) as CrdManifest;
}
