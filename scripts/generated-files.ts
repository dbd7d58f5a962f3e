// Every generated file of the repository, keyed by path. Add new generators here.
import { generatedAlertFiles } from "../alerts/src/index.ts";
import { generatedDashboardFiles } from "../dashboards/src/index.ts";
import { generatedConfigFiles } from "../src/config/reference.ts";
import { generatedChartFiles } from "./chart/render.ts";
import { generatedExampleRuleFiles } from "./example-rule-values.ts";

export function generatedFiles(): Map<string, string> {
  return new Map([
    ...generatedAlertFiles(),
    ...generatedDashboardFiles(),
    ...generatedChartFiles(),
    ...generatedConfigFiles(),
    ...generatedExampleRuleFiles(),
  ]);
}
