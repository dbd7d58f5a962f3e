// Validation of a resource entry's `values`: numeric fields exported as
// cr_value{field} gauges (replicas, instances, sizes, expiry times), read at
// a path or computed by a CEL expression.
import type { CelProgram, CelValueResult } from "../core/cel.ts";
import type { ValueKind } from "../core/project/project.ts";
import type { Checker, Raw } from "./checker.ts";
import type { Schema } from "./option.ts";
import { celExpression, celSchema } from "./validate-cel.ts";
import { stateName, statePath } from "./validate-states.ts";

/** A numeric field exported as cr_value{field}. */
export type ValueOption = PathValue | CelValue;

export interface PathValue {
  /** The `field` label value. */
  name: string;
  /** Dotted path from the object root. */
  path: string;
  /** How the field is read (auto: numbers and booleans as they are, strings as timestamps or quantities). */
  type: ValueKind;
  cel?: undefined;
}

/** A value computed by a CEL expression over `object`: numbers, bools, timestamps and durations (seconds). */
export interface CelValue {
  /** The `field` label value (required: an expression has no last segment to name it by). */
  name: string;
  cel: CelProgram<CelValueResult>;
  path?: undefined;
}

const valueKinds: readonly ValueKind[] = ["auto", "number", "quantity", "timestamp", "boolean"];
const valuePath = statePath;
const valueName = stateName;
/** Series per object in cr_value at most: the cost of a resource stays bounded by its configuration. */
export const maxValues = 20;

/** What a file may hold at `values`. */
export const valueOptionsSchema: Schema = (Type) =>
  Type.Array(
    Type.Union([
      Type.Object(
        {
          path: Type.String({ pattern: valuePath.source }),
          name: Type.Optional(Type.String({ pattern: valueName.source })),
          type: Type.Optional(Type.Union(valueKinds.map((k) => Type.Literal(k)))),
        },
        { additionalProperties: false },
      ),
      Type.Object(
        { cel: celSchema(Type), name: Type.String({ pattern: valueName.source }) },
        { additionalProperties: false },
      ),
    ]),
    { maxItems: maxValues },
  );

/** The `field` label of a path's value when no name is given: its last segment (status.readyReplicas → readyReplicas). */
function nameOf(path: string): string {
  return path.split(".").at(-1) ?? path;
}

/** One `values` entry at `p` (its problems recorded), or undefined. */
function valueOption(c: Checker, p: string, raw: Raw): ValueOption | undefined {
  if (raw.cel !== undefined) {
    for (const key of ["path", "type"])
      if (raw[key] !== undefined)
        c.problems.push(
          `${p}.${key}: a value is read at a path or computed by cel, not both (the result's type decides)`,
        );
    if (raw.name === undefined) c.problems.push(`${p}.name: required with cel (the field label of cr_value)`);
    const name = c.string(`${p}.name`, raw.name, valueName, "a lower-camel-case name such as expiresIn");
    const cel = celExpression(c, `${p}.cel`, raw.cel, "value");
    return name === undefined || cel === undefined ? undefined : { name, cel };
  }
  if (raw.path === undefined) c.problems.push(`${p}.path: required (the numeric field to read, or cel)`);
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
  if (name === undefined || field === undefined || type === undefined) return undefined;
  return { name, path: field, type };
}

/** `values: [{ path, name?, type? } | { cel, name }]`; undefined when absent. */
export function valueOptions(c: Checker, path: string, value: unknown): ValueOption[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) return c.fail(path, "a list of {path, name?, type?} or {cel, name}", value);
  if (value.length > maxValues)
    return c.fail(path, `at most ${maxValues} values (each is a series per object)`, value.length);
  const out: ValueOption[] = [];
  const names = new Set<string>();
  value.forEach((item, i) => {
    const p = `${path}[${i}]`;
    const raw = c.object(p, item, ["path", "name", "type", "cel"]);
    if (!raw) return;
    const option = valueOption(c, p, raw);
    if (option === undefined) return;
    if (names.has(option.name)) {
      c.problems.push(`${p}.name: "${option.name}" is given twice (name one of the two values)`);
      return;
    }
    names.add(option.name);
    out.push(option);
  });
  return out;
}
