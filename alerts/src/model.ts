// The typed shape of Prometheus rule groups, as written to a rule file and to
// the `spec` of a PrometheusRule. Only fields understood by Prometheus ≥ 2.42
// and prometheus-operator ≥ 0.66 are modelled, so every generated file loads there.

export type Duration = `${number}${"s" | "m" | "h" | "d"}`;

export type Severity = "critical" | "warning" | "info";

export interface AlertingRule {
  readonly alert: string;
  readonly expr: string;
  /** Absent for the alerts that count their duration in the expression (rules.ts). */
  readonly for?: Duration;
  readonly keep_firing_for?: Duration;
  readonly labels: { readonly severity: Severity } & Readonly<Record<string, string>>;
  readonly annotations: {
    readonly summary: string;
    readonly description: string;
    readonly runbook_url: string;
  };
}

export interface RecordingRule {
  readonly record: string;
  readonly expr: string;
}

export interface RuleGroup {
  readonly name: string;
  readonly rules: readonly (AlertingRule | RecordingRule)[];
}

export function isAlertingRule(rule: AlertingRule | RecordingRule): rule is AlertingRule {
  return "alert" in rule;
}
