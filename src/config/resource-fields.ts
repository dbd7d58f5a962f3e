// Readers of the per-resource options that are more than a scalar: label
// mappings, the phase tables. Each names the path of every problem (Checker).
import { sanitizeLabelName } from "../core/series/exposition.ts";
import type { Checker } from "./checker.ts";

export const dottedPath = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;
export const dns1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
export const prefixPattern = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export interface LabelMapping {
  /** path: a scalar field of the object (kube-state-metrics' labelsFromPath). */
  from: "label" | "annotation" | "path";
  /** The label or annotation key, or the dotted path. */
  key: string;
  /** Prometheus label name. */
  name: string;
}

export function labelMappings(c: Checker, path: string, value: unknown): LabelMapping[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value))
    return c.fail(path, "a list of {fromLabel|fromAnnotation|fromPath, name}", value);
  const out: LabelMapping[] = [];
  const reserved = new Set([
    "group",
    "kind",
    "namespace",
    "name",
    "type",
    "status",
    "reason",
    "phase",
    "result",
    "field",
    "value",
  ]);
  const names = new Set<string>();
  value.forEach((item, i) => {
    const p = `${path}[${i}]`;
    const raw = c.object(p, item, ["fromLabel", "fromAnnotation", "fromPath", "name"]);
    if (!raw) return;
    const fromLabel = c.string(`${p}.fromLabel`, raw.fromLabel);
    const fromAnnotation = c.string(`${p}.fromAnnotation`, raw.fromAnnotation);
    const fromPath = c.string(
      `${p}.fromPath`,
      raw.fromPath,
      dottedPath,
      "a dotted path to a scalar field such as spec.suspend",
    );
    const given = [fromLabel, fromAnnotation, fromPath].filter((v) => v !== undefined);
    if (given.length !== 1) {
      if ([raw.fromLabel, raw.fromAnnotation, raw.fromPath].filter((v) => v !== undefined).length !== 1)
        c.problems.push(`${p}: expected exactly one of fromLabel, fromAnnotation or fromPath`);
      return;
    }
    const key = given[0] as string;
    const name =
      c.string(`${p}.name`, raw.name, /^[a-zA-Z_][a-zA-Z0-9_]*$/, "a Prometheus label name") ??
      sanitizeLabelName(key);
    if (reserved.has(name)) {
      c.problems.push(`${p}.name: "${name}" is reserved by the exporter's own labels; choose another name`);
      return;
    }
    if (names.has(name)) {
      c.problems.push(`${p}.name: "${name}" is given twice`);
      return;
    }
    names.add(name);
    const from = fromLabel !== undefined ? "label" : fromAnnotation !== undefined ? "annotation" : "path";
    out.push({ from, key, name });
  });
  return out;
}

export function phaseTransitions(
  c: Checker,
  path: string,
  value: unknown,
): Record<string, string[]> | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return c.fail(path, "a mapping from phase to the list of phases it may move to", value);
  }
  const out: Record<string, string[]> = {};
  for (const [from, to] of Object.entries(value)) {
    const list = c.stringList(`${path}.${from}`, to);
    if (list) out[from] = list;
  }
  return out;
}

const phaseResultValues = ["Current", "InProgress", "Failed"] as const;

export function phaseResults(
  c: Checker,
  path: string,
  value: unknown,
): Record<string, (typeof phaseResultValues)[number]> | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return c.fail(path, `a mapping from phase to one of ${phaseResultValues.join(", ")}`, value);
  }
  const out: Record<string, (typeof phaseResultValues)[number]> = {};
  for (const [phase, result] of Object.entries(value)) {
    const checked = c.oneOf(`${path}.${phase}`, result, phaseResultValues);
    if (checked) out[phase] = checked;
  }
  return out;
}
