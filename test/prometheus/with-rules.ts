// A real Prometheus that evaluates rule groups: the rule file lives in a
// temporary directory that stop() removes with the server. Scrapes and
// evaluations every second, so alerts with a shortened `for` move quickly.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AlertOptions,
  DEFAULT_ALERT_OPTIONS,
  generateRuleGroups,
  type RuleGroup,
  renderRuleFile,
} from "../../alerts/src/index.ts";
import type { PrometheusMajor } from "./binaries.ts";
import { PrometheusServer, type ScrapeTarget } from "./server.ts";

export interface RulesPrometheus {
  readonly server: PrometheusServer;
  stop(): Promise<void>;
}

export async function startWithRules(
  scrape: readonly ScrapeTarget[],
  groups: readonly RuleGroup[],
  major: PrometheusMajor = "2",
): Promise<RulesPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), "cr-rules-"));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    const file = join(dir, "rules.yaml");
    writeFileSync(file, renderRuleFile(groups));
    const server = await PrometheusServer.start({
      scrape,
      ruleFiles: [file],
      scrapeInterval: "1s",
      evaluationInterval: "1s",
      major,
    });
    return {
      server,
      stop: async () => {
        try {
          await server.stop();
        } finally {
          remove();
        }
      },
    };
  } catch (error) {
    remove();
    throw error;
  }
}

/** The shipped rules selecting `job`, without keep_firing_for, with some alerts' `for` shortened. */
export function shippedRulesFor(job: string, shorterFor: Partial<AlertOptions["for"]>): RuleGroup[] {
  return generateRuleGroups({
    ...DEFAULT_ALERT_OPTIONS,
    selector: `job="${job}"`,
    keepFiringFor: null,
    for: { ...DEFAULT_ALERT_OPTIONS.for, ...shorterFor },
  });
}
