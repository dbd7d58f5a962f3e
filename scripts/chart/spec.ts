// A tiny vocabulary for describing Helm values once: each value has its
// default, its JSON schema and its documentation, from which values.yaml,
// values.schema.json and the chart README are all generated (values.ts holds
// the chart's values; render.ts writes the three files).

export type Schema = Record<string, unknown>;

export interface Leaf {
  readonly kind: "leaf";
  readonly default: unknown;
  readonly schema: Schema;
  readonly doc: string;
}

export interface Group {
  readonly kind: "group";
  readonly doc: string;
  readonly children: Readonly<Record<string, Node>>;
}

export type Node = Leaf | Group;

export function group(doc: string, children: Record<string, Node>): Group {
  return { kind: "group", doc, children };
}

function leaf(value: unknown, schema: Schema, doc: string): Leaf {
  return { kind: "leaf", default: value, schema, doc };
}

export const str = (value: string, doc: string, extra: Schema = {}): Leaf =>
  leaf(value, { type: "string", ...extra }, doc);

export const bool = (value: boolean, doc: string): Leaf => leaf(value, { type: "boolean" }, doc);

export const int = (value: number, doc: string, minimum = 0, extra: Schema = {}): Leaf =>
  leaf(value, { type: "integer", minimum, ...extra }, doc);

export const num = (value: number, doc: string, extra: Schema = {}): Leaf =>
  leaf(value, { type: "number", minimum: 0, ...extra }, doc);

export const oneOf = <T extends string>(choices: readonly T[], value: T, doc: string): Leaf =>
  leaf(value, { type: "string", enum: [...choices] }, doc);

/** Prometheus duration: 30s, 5m, 1h, … */
export const duration = (value: string, doc: string, allowEmpty = false): Leaf =>
  leaf(value, { type: "string", pattern: `^(${allowEmpty ? "|" : ""}[0-9]+(ms|s|m|h|d|w|y))$` }, doc);

/** A map of label or annotation names to string values. */
export const stringMap = (doc: string, value: Record<string, string> = {}): Leaf =>
  leaf(value, { type: "object", additionalProperties: { type: "string" } }, doc);

/** Kubernetes objects or lists passed through as given (the apiserver validates them). */
export const k8sObject = (doc: string, value: Record<string, unknown> = {}): Leaf =>
  leaf(value, { type: "object" }, doc);

export const k8sList = (doc: string, value: unknown[] = []): Leaf =>
  leaf(value, { type: "array", items: { type: "object" } }, doc);

export const stringList = (doc: string, value: string[] = []): Leaf =>
  leaf(value, { type: "array", items: { type: "string" } }, doc);

export const custom = (value: unknown, schema: Schema, doc: string): Leaf => leaf(value, schema, doc);

/** The JSON schema of a node; groups are closed (unknown keys are errors). */
export function schemaOf(node: Node): Schema {
  if (node.kind === "leaf") return { description: node.doc, ...node.schema };
  return {
    type: "object",
    ...(node.doc && { description: node.doc }),
    additionalProperties: false,
    properties: Object.fromEntries(
      Object.entries(node.children).map(([key, child]) => [key, schemaOf(child)]),
    ),
  };
}

/** The default values of a node, as a plain object. */
export function defaultsOf(node: Node): unknown {
  if (node.kind === "leaf") return node.default;
  return Object.fromEntries(Object.entries(node.children).map(([key, child]) => [key, defaultsOf(child)]));
}

/** Every leaf with its dotted path, in order. */
export function leaves(node: Node, path = ""): { path: string; leaf: Leaf }[] {
  if (node.kind === "leaf") return [{ path, leaf: node }];
  return Object.entries(node.children).flatMap(([key, child]) =>
    leaves(child, path ? `${path}.${/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? key : `"${key}"`}` : key),
  );
}
