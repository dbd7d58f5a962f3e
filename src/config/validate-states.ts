// Validation of a resource entry's `states`: string fields exported as state
// sets (cr_state) and, with `ready`/`failed`, part of the readiness rule.

import type { Checker } from "./checker.ts";
import type { Schema } from "./option.ts";

/** A string field exported as a state set (cr_state), optionally part of readiness. */
export interface StateOption {
  /** The `field` label value. */
  name: string;
  /** Dotted path from the object root. */
  path: string;
  /** The fixed values (e.g. the CRD's enum); undefined: the CRD's enum where detected, else learned. */
  values: string[] | undefined;
  /** Values that mean ready (empty: the field does not gate readiness). */
  ready: string[];
  /** Values that turn cr_status Failed once held for failedAfter. */
  failed: string[];
}

/** A dotted field path from the object root (states and values). */
export const statePath = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;
/** The `field` label of a configured field (states and values). */
export const stateName = /^[a-z][a-zA-Z0-9_]*$/;
/** Label values of cr_state per field: as many as phases may have (label-bounds.ts). */
export const maxStateValues = 20;

function valueList(
  c: Checker,
  path: string,
  value: unknown,
  allowed: readonly string[] | undefined,
): string[] | undefined {
  const list = c.stringList(path, value);
  if (!list || !allowed) return list;
  return list.filter((v, i) => {
    if (allowed.includes(v)) return true;
    c.problems.push(`${path}[${i}]: "${v}" is not one of the listed values (${allowed.join(", ")})`);
    return false;
  });
}

/** What a file may hold at `states`. */
export const stateOptionsSchema: Schema = (Type) => {
  const valuesSchema = Type.Array(Type.String({ minLength: 1 }));
  return Type.Array(
    Type.Object(
      {
        name: Type.String({ pattern: stateName.source }),
        path: Type.String({ pattern: statePath.source }),
        values: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: maxStateValues })),
        ready: Type.Optional(valuesSchema),
        failed: Type.Optional(valuesSchema),
      },
      { additionalProperties: false },
    ),
  );
};

/** `states: [{ name, path, values?, ready?, failed? }]`; undefined when absent. */
export function stateOptions(c: Checker, path: string, value: unknown): StateOption[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) return c.fail(path, "a list of {name, path, values?, ready?, failed?}", value);
  const out: StateOption[] = [];
  const names = new Set<string>();
  value.forEach((item, i) => {
    const p = `${path}[${i}]`;
    const raw = c.object(p, item, ["name", "path", "values", "ready", "failed"]);
    if (!raw) return;
    const name = c.string(`${p}.name`, raw.name, stateName, "a lower-camel-case name such as health");
    const field = c.string(
      `${p}.path`,
      raw.path,
      statePath,
      "a dotted field path such as status.health.status",
    );
    if (raw.name === undefined) c.problems.push(`${p}.name: required (the field label of cr_state)`);
    if (raw.path === undefined) c.problems.push(`${p}.path: required (the string field to read)`);
    if (name !== undefined && names.has(name)) c.problems.push(`${p}.name: "${name}" is given twice`);
    if (name !== undefined) names.add(name);
    const values = valueList(c, `${p}.values`, raw.values, undefined);
    if (values && values.length > maxStateValues)
      c.fail(`${p}.values`, `at most ${maxStateValues} values (each is a label value)`, raw.values);
    const ready = valueList(c, `${p}.ready`, raw.ready, values) ?? [];
    const failed = valueList(c, `${p}.failed`, raw.failed, values) ?? [];
    for (const v of failed) {
      if (ready.includes(v))
        c.problems.push(`${p}.failed: "${v}" is also in ready; a value is one or the other`);
    }
    if (name === undefined || field === undefined) return;
    out.push({ name, path: field, values, ready, failed });
  });
  return out;
}
