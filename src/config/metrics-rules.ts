// Validation of `metrics: { allow, deny, optIn }` (globally and per resource):
// lists of family names or globs over the full names as exported. allow and
// deny are mutually exclusive, as in kube-state-metrics; a pattern that
// matches no family is an error, so a typo never passes silently.

import { type FamilyRules, selectableFamilies, unmatchedPatterns } from "../core/series/family-selection.ts";
import type { Checker } from "./checker.ts";
import type { Schema } from "./option.ts";

const familyPattern = /^[a-zA-Z_:*][a-zA-Z0-9_:*]*$/;

function patterns(c: Checker, path: string, value: unknown, prefix: string): string[] | undefined {
  const list = c.stringList(path, value);
  if (!list) return undefined;
  const valid: string[] = [];
  list.forEach((pattern, i) => {
    if (!familyPattern.test(pattern)) {
      c.fail(`${path}[${i}]`, `a metric family name or a glob such as ${prefix}condition*`, pattern);
      return;
    }
    valid.push(pattern);
  });
  for (const pattern of unmatchedPatterns(prefix, valid)) {
    const examples = selectableFamilies(prefix)
      .map((f) => f.name)
      .slice(0, 3)
      .join(", ");
    c.problems.push(
      `${path}[${list.indexOf(pattern)}]: "${pattern}" matches no metric family (names are as exported, e.g. ${examples}; docs/metrics.md lists them)`,
    );
  }
  return valid;
}

/** What a file may hold at `metrics` (globally and per resource). */
export const familyRulesSchema: Schema = (Type) => {
  const patternList = Type.Array(Type.String({ pattern: familyPattern.source }));
  return Type.Object(
    {
      allow: Type.Optional(patternList),
      deny: Type.Optional(patternList),
      optIn: Type.Optional(patternList),
    },
    { additionalProperties: false },
  );
};

export function familyRules(
  c: Checker,
  path: string,
  value: unknown,
  prefix: string,
): FamilyRules | undefined {
  if (value === undefined) return undefined;
  const raw = c.object(path, value, ["allow", "deny", "optIn"]);
  if (!raw) return undefined;
  const rules: FamilyRules = {
    allow: patterns(c, `${path}.allow`, raw.allow, prefix),
    deny: patterns(c, `${path}.deny`, raw.deny, prefix),
    optIn: patterns(c, `${path}.optIn`, raw.optIn, prefix),
  };
  if (rules.allow && rules.deny) {
    c.problems.push(
      `${path}: allow and deny are mutually exclusive (as kube-state-metrics' --metric-allowlist and --metric-denylist); give one of them`,
    );
  }
  if (rules.allow && rules.optIn) {
    c.problems.push(
      `${path}.optIn: has no effect next to allow, which lists exactly the families exported; put the families in allow`,
    );
  }
  return rules;
}
