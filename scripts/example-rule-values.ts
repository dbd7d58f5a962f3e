// Each example's rules.yaml (a Prometheus rule file, for a Prometheus that
// loads files) again as Helm values, examples/<project>/rules.values.yaml:
// the same groups under prometheusRule.additionalGroups, so a chart user adds
// them with one more --values. The rule file is the one place they are
// written; this copy is generated (`npm run generate`) and a unit test keeps it equal.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { repositoryRoot } from "./deploy-sync.ts";

const examples = join(repositoryRoot, "examples");

export function exampleRuleValues(rules: string, project: string): string {
  const { groups } = parse(rules) as { groups: unknown[] };
  return (
    `# Generated from rules.yaml by \`npm run generate\`: the ${project} rules for the Helm chart\n` +
    `# (helm … --values examples/${project}/alerts.values.yaml --values examples/${project}/rules.values.yaml\n` +
    "# --set prometheusRule.enabled=true).\n" +
    stringify({ prometheusRule: { additionalGroups: groups } }, { lineWidth: 0 })
  );
}

export function generatedExampleRuleFiles(): [string, string][] {
  return readdirSync(examples)
    .filter((project) => existsSync(join(examples, project, "rules.yaml")))
    .map((project) => [
      `examples/${project}/rules.values.yaml`,
      exampleRuleValues(readFileSync(join(examples, project, "rules.yaml"), "utf8"), project),
    ]);
}
