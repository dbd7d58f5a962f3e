// The per-resource `tracing` option: what a resource's root spans join
// (docs/tracing.md#joins). `parent` makes the generation root a child of its
// controller owner's or its source's root (else it links to them); `source`
// names the source: its kind, and where the object names it (a reference
// field such as spec.sourceRef, or a label pair such as Flux's
// kustomize.toolkit.fluxcd.io/name and /namespace). `operation` names the
// server-written start and end of the object's current operation (Argo CD's
// status.operationState): a kind without generation roots is then traced by
// operations, roots keyed by that start, which other objects can join.
import type { Type } from "typebox";
import type { OperationPaths, RefField, SourceRefSource } from "../core/project/refs.ts";
import type { Checker } from "./checker.ts";
import { dottedPath } from "./resource-fields.ts";

export interface ResourceTracing {
  parent: "owner" | "source" | undefined;
  /** The source's kind, and where the object names it. */
  source: { group: string; kind: string; ref: SourceRefSource } | undefined;
  /** Where the object's current operation says when it started and finished; undefined: not traced by operations. */
  operation: OperationPaths | undefined;
}

export const noResourceTracing: ResourceTracing = {
  parent: undefined,
  source: undefined,
  operation: undefined,
};

const fieldKeys = ["fromLabel", "fromAnnotation", "fromPath", "value"] as const;

function refField(c: Checker, path: string, value: unknown): RefField | undefined {
  const raw = c.object(path, value, fieldKeys);
  if (!raw) return undefined;
  const given = fieldKeys.filter((k) => raw[k] !== undefined);
  if (given.length !== 1) {
    c.problems.push(`${path}: expected exactly one of fromLabel, fromAnnotation, fromPath or value`);
    return undefined;
  }
  const key = given[0] as (typeof fieldKeys)[number];
  if (key === "fromPath") {
    const p = c.string(
      `${path}.fromPath`,
      raw.fromPath,
      dottedPath,
      "a dotted field path such as spec.sourceRef.name",
    );
    return p === undefined ? undefined : { from: "path", path: p.split(".") };
  }
  const text = c.string(`${path}.${key}`, raw[key]);
  if (text === undefined) return undefined;
  if (key === "value") return { from: "value", value: text };
  return { from: key === "fromLabel" ? "label" : "annotation", key: text };
}

function fieldPath(c: Checker, path: string, value: unknown): string[] | undefined {
  const p = c.string(path, value, dottedPath, "a dotted field path such as status.operationState.startedAt");
  return p === undefined ? undefined : p.split(".");
}

function operationPaths(c: Checker, path: string, value: unknown): OperationPaths | undefined {
  const raw = c.object(path, value, ["startedAt", "finishedAt", "phase"]);
  if (!raw) return undefined;
  for (const key of ["startedAt", "finishedAt"] as const) {
    if (raw[key] === undefined) c.problems.push(`${path}.${key}: required (a server-written RFC 3339 time)`);
  }
  const startedAt =
    raw.startedAt === undefined ? undefined : fieldPath(c, `${path}.startedAt`, raw.startedAt);
  const finishedAt =
    raw.finishedAt === undefined ? undefined : fieldPath(c, `${path}.finishedAt`, raw.finishedAt);
  const phase = raw.phase === undefined ? undefined : fieldPath(c, `${path}.phase`, raw.phase);
  if (startedAt === undefined || finishedAt === undefined) return undefined;
  return { startedAt, finishedAt, phase };
}

export function resourceTracing(c: Checker, path: string, value: unknown): ResourceTracing | undefined {
  if (value === undefined) return undefined;
  const raw = c.object(path, value, ["parent", "source", "operation"]);
  if (!raw) return undefined;
  const parent =
    raw.parent === undefined
      ? undefined
      : c.oneOf(`${path}.parent`, raw.parent, ["owner", "source"] as const);
  let source: ResourceTracing["source"];
  if (raw.source !== undefined) {
    const p = `${path}.source`;
    const s = c.object(p, raw.source, ["group", "kind", "name", "namespace", "kindFrom"]);
    if (s) {
      const group = s.group === undefined ? "" : c.string(`${p}.group`, s.group);
      const kind = c.string(`${p}.kind`, s.kind, /^[A-Z][A-Za-z0-9]*$/, "a kind such as Kustomization");
      if (s.kind === undefined) c.problems.push(`${p}.kind: required (the kind the reference names)`);
      if (s.name === undefined) c.problems.push(`${p}.name: required (where the source's name is read)`);
      const name = s.name === undefined ? undefined : refField(c, `${p}.name`, s.name);
      const namespace = s.namespace === undefined ? undefined : refField(c, `${p}.namespace`, s.namespace);
      const kindFrom = s.kindFrom === undefined ? undefined : refField(c, `${p}.kindFrom`, s.kindFrom);
      if (group !== undefined && kind !== undefined && name !== undefined)
        source = { group, kind, ref: { name, namespace, kind: kindFrom } };
    }
  }
  if (parent === "source" && raw.source === undefined)
    c.problems.push(`${path}.parent: "source" needs ${path}.source (which object is the source)`);
  const operation =
    raw.operation === undefined ? undefined : operationPaths(c, `${path}.operation`, raw.operation);
  return { parent, source, operation };
}

const fieldSchema = (T: typeof Type) =>
  T.Object(
    {
      fromLabel: T.Optional(T.String({ minLength: 1 })),
      fromAnnotation: T.Optional(T.String({ minLength: 1 })),
      fromPath: T.Optional(T.String({ pattern: dottedPath.source })),
      value: T.Optional(T.String({ minLength: 1 })),
    },
    { additionalProperties: false, minProperties: 1, maxProperties: 1 },
  );

export const resourceTracingSchema = (T: typeof Type) =>
  T.Object(
    {
      parent: T.Optional(T.Union([T.Literal("owner"), T.Literal("source")])),
      source: T.Optional(
        T.Object(
          {
            group: T.Optional(T.String()),
            kind: T.String({ pattern: "^[A-Z][A-Za-z0-9]*$" }),
            name: fieldSchema(T),
            namespace: T.Optional(fieldSchema(T)),
            kindFrom: T.Optional(fieldSchema(T)),
          },
          { additionalProperties: false },
        ),
      ),
      operation: T.Optional(
        T.Object(
          {
            startedAt: T.String({ pattern: dottedPath.source }),
            finishedAt: T.String({ pattern: dottedPath.source }),
            phase: T.Optional(T.String({ pattern: dottedPath.source })),
          },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false },
  );
