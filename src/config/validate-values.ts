// Validation of a resource entry's `values`: numeric fields exported as
// cr_value{field} gauges (replicas, instances, sizes, expiry times).
import type { ValueKind } from "../core/project/project.ts";
import type { Checker } from "./checker.ts";
import type { Schema } from "./option.ts";
import { stateName, statePath } from "./validate-states.ts";

/** A numeric field exported as cr_value{field}. */
export interface ValueOption {
  /** The `field` label value. */
  name: string;
  /** Dotted path from the object root. */
  path: string;
  /** How the field is read (auto: numbers and booleans as they are, strings as timestamps or quantities). */
  type: ValueKind;
}

const valueKinds: readonly ValueKind[] = ["auto", "number", "quantity", "timestamp", "boolean"];
const valuePath = statePath;
const valueName = stateName;
/** Series per object in cr_value at most: the cost of a resource stays bounded by its configuration. */
export const maxValues = 20;

/** What a file may hold at `values`. */
export const valueOptionsSchema: Schema = (Type) =>
  Type.Array(
    Type.Object(
      {
        path: Type.String({ pattern: valuePath.source }),
        name: Type.Optional(Type.String({ pattern: valueName.source })),
        type: Type.Optional(Type.Union(valueKinds.map((k) => Type.Literal(k)))),
      },
      { additionalProperties: false },
    ),
    { maxItems: maxValues },
  );

/** The `field` label of a path's value when no name is given: its last segment (status.readyReplicas → readyReplicas). */
function nameOf(path: string): string {
  return path.split(".").at(-1) ?? path;
}

/** `values: [{ path, name?, type? }]`; undefined when absent. */
export function valueOptions(c: Checker, path: string, value: unknown): ValueOption[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) return c.fail(path, "a list of {path, name?, type?}", value);
  if (value.length > maxValues)
    return c.fail(path, `at most ${maxValues} values (each is a series per object)`, value.length);
  const out: ValueOption[] = [];
  const names = new Set<string>();
  value.forEach((item, i) => {
    const p = `${path}[${i}]`;
    const raw = c.object(p, item, ["path", "name", "type"]);
    if (!raw) return;
    if (raw.path === undefined) c.problems.push(`${p}.path: required (the numeric field to read)`);
    const field = c.string(
      `${p}.path`,
      raw.path,
      valuePath,
      "a dotted field path such as status.readyReplicas",
    );
    const name =
      raw.name === undefined
        ? field && nameOf(field)
        : c.string(`${p}.name`, raw.name, valueName, "a lower-camel-case name such as readyReplicas");
    const type = raw.type === undefined ? "auto" : c.oneOf(`${p}.type`, raw.type, valueKinds);
    if (name === undefined || field === undefined || type === undefined) return;
    if (names.has(name)) {
      c.problems.push(`${p}.name: "${name}" is given twice (name one of the two paths)`);
      return;
    }
    names.add(name);
    out.push({ name, path: field, type });
  });
  return out;
}
