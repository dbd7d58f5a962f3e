// Scoping of the per-object and per-namespace alerts to some kinds and
// namespaces: label matchers added after the exporter's selector. The chart
// computes the same matchers from its values (templates/prometheusrule.yaml),
// so a scope is a token in the rule template.
import type { AlertOptions, AlertScope } from "./options.ts";

const FIELDS = {
  kinds: ["kind", "=~"],
  excludeKinds: ["kind", "!~"],
  namespaces: ["namespace", "=~"],
  excludeNamespaces: ["namespace", "!~"],
} as const satisfies Record<keyof AlertScope, readonly [label: string, op: string]>;

/** The token the chart replaces with an alert's scope matchers (", kind=~…" or nothing). */
export const SCOPE_TOKEN = "@@scope@@";

function checked(where: string, scope: AlertScope): AlertScope {
  for (const [field, value] of Object.entries(scope)) {
    if (!(field in FIELDS))
      throw new Error(`${where}.${field}: unknown field (expected one of ${Object.keys(FIELDS).join(", ")})`);
    if (value === undefined || value === "") continue;
    if (typeof value !== "string")
      throw new Error(`${where}.${field}: ${JSON.stringify(value)} is not a string`);
    try {
      new RegExp(value);
    } catch (error) {
      throw new Error(
        `${where}.${field}: "${value}" is not a regular expression (${(error as Error).message})`,
      );
    }
  }
  return scope;
}

/**
 * The matchers that scope `alert`, each preceded by ", ": the alert's own
 * fields over the global scope's. In the chart's template, the token instead.
 */
export function scopeMatchers(options: AlertOptions, alert: string): string {
  if (options.scope === SCOPE_TOKEN_SCOPE) return SCOPE_TOKEN;
  const scope = {
    ...checked("scope", options.scope),
    ...checked(`alertScopes.${alert}`, options.alertScopes[alert] ?? {}),
  };
  return (Object.keys(FIELDS) as (keyof AlertScope)[])
    .filter((field) => scope[field])
    .map((field) => {
      const [label, op] = FIELDS[field];
      return `, ${label}${op}${JSON.stringify(scope[field])}`;
    })
    .join("");
}

/** The scope of the template options: every alert gets the token. */
export const SCOPE_TOKEN_SCOPE: AlertScope = Object.freeze({});
