// The files generated from the rule definitions, keyed by their repository path.

import { DEFAULT_ALERT_OPTIONS } from "./options.ts";
import { renderPrometheusRule, renderRuleFile } from "./render.ts";
import { generateRuleGroups } from "./rules.ts";
import { RULE_TEMPLATE_FILE, renderRuleTemplate } from "./template.ts";

export type { AlertingRule, Duration, RecordingRule, RuleGroup, Severity } from "./model.ts";
export { isAlertingRule } from "./model.ts";
export { type AlertOptions, DEFAULT_ALERT_OPTIONS } from "./options.ts";
export { RECORDED_RATE_WINDOW, type RecordNames, recordNames } from "./records.ts";
export { renderPrometheusRule, renderRuleFile } from "./render.ts";
export { generateRuleGroups } from "./rules.ts";
export {
  type ChartAlertDefaults,
  chartAlertDefaults,
  RULE_TEMPLATE_FILE,
  renderRuleTemplate,
  templateRuleGroups,
} from "./template.ts";

export const RULE_FILE = "alerts/cr-status-exporter.rules.yaml";
export const PROMETHEUS_RULE_FILE = "alerts/prometheusrule.yaml";

export function generatedAlertFiles(): Map<string, string> {
  const groups = generateRuleGroups(DEFAULT_ALERT_OPTIONS);
  return new Map([
    [RULE_FILE, renderRuleFile(groups)],
    [PROMETHEUS_RULE_FILE, renderPrometheusRule(groups, { name: "cr-status-exporter", labels: {} })],
    [RULE_TEMPLATE_FILE, renderRuleTemplate()],
  ]);
}
