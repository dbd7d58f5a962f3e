// The rules as a template for the Helm chart, which tunes them from its values
// without a second copy of the rule logic: the groups are generated with every
// option set to a token, and the chart substitutes the tokens with values
// (embedded with .Files.Get and replaced as strings, never evaluated as a
// template, so the rules' own {{ $labels.x }} stay as they are).
//
//   @@job@@                the scraped job (the chart derives it from its ServiceMonitor)
//   @@for@@                this alert's `for` (prometheusRule.alerts.<alert>.for)
//   @@forSeconds@@         the same in seconds, for the alerts that count their duration in
//                          the expression (and have no `for`: the condition alerts, rules.ts)
//   @@threshold.<name>@@   prometheusRule.thresholds.<name>
//   @@scope@@              this alert's kind/namespace matchers (prometheusRule.scope, .alerts.<alert>.scope)
//   @@rateWindow@@, @@keepFiringFor@@, @@runbookBaseUrl@@
//
// chartAlertDefaults() gives the values that reproduce the shipped rules; the
// deploy tests render the chart with them and compare with the rule file.
import type { AlertingRule, RuleGroup, Severity } from "./model.ts";
import { isAlertingRule } from "./model.ts";
import { type AlertOptions, DEFAULT_ALERT_OPTIONS } from "./options.ts";
import { renderRuleFile } from "./render.ts";
import { generateRuleGroups } from "./rules.ts";
import { SCOPE_TOKEN, SCOPE_TOKEN_SCOPE } from "./scope.ts";

export const RULE_TEMPLATE_FILE = "alerts/cr-status-exporter.rules.template.yaml";

type Thresholds = AlertOptions["thresholds"];

const token = (name: string): string => `@@${name}@@`;

/** The options with a token in every tunable place. */
function templateOptions(): AlertOptions {
  const tokens = <T extends object>(prefix: string, of: T): T =>
    Object.fromEntries(Object.keys(of).map((key) => [key, token(`${prefix}${key}`)])) as T;
  return {
    metricPrefix: DEFAULT_ALERT_OPTIONS.metricPrefix,
    selector: `job="${token("job")}"`,
    runbookBaseUrl: token("runbookBaseUrl"),
    keepFiringFor: token("keepFiringFor") as AlertOptions["keepFiringFor"],
    criticalKinds: [],
    // Every alert is in the template; the chart's values enable them (the family alerts are off by default).
    families: { heartbeat: true, conditionStale: true },
    scope: SCOPE_TOKEN_SCOPE,
    alertScopes: {},
    for: tokens("for.", DEFAULT_ALERT_OPTIONS.for),
    thresholds: tokens("threshold.", DEFAULT_ALERT_OPTIONS.thresholds),
    rateWindow: token("rateWindow") as AlertOptions["rateWindow"],
  };
}

/** Every string of a rule, for token checks. */
function texts(rule: AlertingRule): string[] {
  return [
    rule.expr,
    ...(rule.for === undefined ? [] : [rule.for]),
    ...Object.values(rule.labels),
    ...Object.values(rule.annotations),
  ];
}

/** A `for` option in a rule's text: its duration (@@for.x@@) or its seconds (@@seconds:for.x@@). */
const FOR_TOKEN = /@@(?:seconds:)?for\.(\w+)@@/g;

/**
 * The key of the alert's own duration in `options.for`, from a rule generated
 * with the template options: its `for`, or for an alert without one, the one
 * duration its texts use. Throws if it has none, or uses another alert's
 * (the chart could not tune them apart).
 */
function ownForKey(rule: AlertingRule): string {
  const fromFor = rule.for === undefined ? undefined : /^@@for\.(\w+)@@$/.exec(rule.for)?.[1];
  const used = new Set(texts(rule).flatMap((text) => [...text.matchAll(FOR_TOKEN)].map((m) => m[1] ?? "")));
  const own = rule.for === undefined && used.size === 1 ? [...used][0] : fromFor;
  if (!own)
    throw new Error(`${rule.alert}: its for is not an option (${rule.for ?? "none, nor a duration"})`);
  const others = [...used].filter((key) => key !== own);
  if (others.length > 0) throw new Error(`${rule.alert} uses the for of another alert: ${others.join(", ")}`);
  return own;
}

/**
 * The template groups: each alert's own `for` token becomes @@for@@ (its
 * seconds @@forSeconds@@), so the chart's values can be keyed by alert name.
 */
export function templateRuleGroups(): RuleGroup[] {
  return generateRuleGroups(templateOptions()).map((group) => ({
    ...group,
    rules: group.rules.map((rule) => {
      if (!isAlertingRule(rule)) return rule;
      const own = ownForKey(rule);
      const replace = (text: string): string =>
        text
          .replaceAll(token(`seconds:for.${own}`), token("forSeconds"))
          .replaceAll(token(`for.${own}`), token("for"));
      return {
        ...rule,
        expr: replace(rule.expr),
        ...(rule.for === undefined ? {} : { for: token("for") as AlertingRule["for"] }),
        annotations: {
          summary: replace(rule.annotations.summary),
          description: replace(rule.annotations.description),
          runbook_url: replace(rule.annotations.runbook_url),
        },
      };
    }),
  }));
}

export function renderRuleTemplate(): string {
  return renderRuleFile(templateRuleGroups()).replace(
    /^# Generated by .*\n/,
    "# Generated by `npm run generate` from alerts/src (alerts/src/template.ts): the rules with tokens the Helm\n" +
      "# chart replaces from its values (prometheusRule.*). Edit the TypeScript, not this file.\n",
  );
}

export interface ChartAlertDefaults {
  /**
   * Per alert name: what the shipped rules use; `enabled` is false for the
   * alerts on families a deployment must configure or opt in to; `scoped` says
   * whether the alert takes a kind/namespace scope; `fromTransition` that its
   * duration (`for`) is counted in the expression from the condition's
   * lastTransitionTime, the rule having no `for`.
   */
  alerts: Record<
    string,
    { enabled: boolean; for: string; severity: Severity; scoped: boolean; fromTransition: boolean }
  >;
  thresholds: Thresholds;
  rateWindow: string;
  keepFiringFor: string;
  runbookBaseUrl: string;
}

/** The chart values that reproduce the rules generated with DEFAULT_ALERT_OPTIONS. */
export function chartAlertDefaults(options: AlertOptions = DEFAULT_ALERT_OPTIONS): ChartAlertDefaults {
  const alerts: ChartAlertDefaults["alerts"] = {};
  const shipped = new Set(
    generateRuleGroups(options)
      .flatMap((g) => g.rules)
      .filter(isAlertingRule)
      .map((rule) => rule.alert),
  );
  const scoped = new Set(
    templateRuleGroups()
      .flatMap((g) => g.rules)
      .filter(isAlertingRule)
      .filter((rule) => rule.expr.includes(SCOPE_TOKEN))
      .map((rule) => rule.alert),
  );
  const forKeys = new Map(
    generateRuleGroups(templateOptions())
      .flatMap((g) => g.rules)
      .filter(isAlertingRule)
      .map((rule) => [rule.alert, ownForKey(rule) as keyof AlertOptions["for"]]),
  );
  const all = { ...options, families: { heartbeat: true, conditionStale: true } };
  for (const rule of generateRuleGroups(all).flatMap((g) => g.rules)) {
    if (!isAlertingRule(rule)) continue;
    const key = forKeys.get(rule.alert);
    if (key === undefined) throw new Error(`${rule.alert}: not in the rule template`);
    alerts[rule.alert] = {
      enabled: shipped.has(rule.alert),
      for: options.for[key],
      severity: rule.labels.severity,
      scoped: scoped.has(rule.alert),
      fromTransition: rule.for === undefined,
    };
  }
  return {
    alerts,
    thresholds: options.thresholds,
    rateWindow: options.rateWindow,
    keepFiringFor: options.keepFiringFor ?? "",
    runbookBaseUrl: options.runbookBaseUrl,
  };
}
