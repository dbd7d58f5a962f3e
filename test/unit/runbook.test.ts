import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ALL_ALERT_OPTIONS, generateRuleGroups, isAlertingRule } from "../../alerts/src/index.ts";
import { REPO_ROOT } from "../monitoring/metrics-contract.ts";

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

function runbookSections(): Map<string, string> {
  const text = readFileSync(join(REPO_ROOT, "docs", "runbook.md"), "utf8");
  const sections = new Map<string, string>();
  const parts = text.split(/^## /m).slice(1);
  for (const part of parts) {
    const newline = part.indexOf("\n");
    sections.set(anchorOf(part.slice(0, newline)), part.slice(newline + 1));
  }
  return sections;
}

// Every alert, those off by default included.
const alerts = generateRuleGroups(ALL_ALERT_OPTIONS)
  .flatMap((g) => g.rules)
  .filter(isAlertingRule);

test("every alert's runbook_url points at a heading of docs/runbook.md", () => {
  const sections = runbookSections();
  for (const alert of alerts) {
    const anchor = new URL(alert.annotations.runbook_url).hash.slice(1);
    assert.ok(sections.has(anchor), `${alert.alert}: docs/runbook.md has no heading for #${anchor}`);
  }
});

test("every runbook section says what the alert means and what to do", () => {
  const sections = runbookSections();
  for (const alert of alerts) {
    const body = sections.get(alert.alert.toLowerCase()) ?? "";
    const meaning = /\*\*Meaning:\*\*\s*(\S.{20,})/s.exec(body);
    const todo = /\*\*What to do:\*\*\s*\n+\s*1\.\s+\S/.exec(body);
    assert.ok(meaning, `${alert.alert}: section lacks a "**Meaning:**" paragraph`);
    assert.ok(todo, `${alert.alert}: section lacks a numbered "**What to do:**" list`);
  }
});

test("the runbook has no section for an alert that does not exist", () => {
  const names = new Set(alerts.map((a) => a.alert.toLowerCase()));
  for (const anchor of runbookSections().keys())
    assert.ok(names.has(anchor), `runbook section #${anchor} has no alert`);
});
