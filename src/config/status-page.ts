// The `statusPage` section: links from the status page and the API to a
// Grafana dashboard and to traces, the page's auto-refresh, and what counts as
// flapping. Kept apart from validate.ts so the section reads in one place.
import { type LinkTemplates, templateProblem } from "../status/links.ts";
import type { Checker } from "./checker.ts";

export interface StatusPageConfig extends LinkTemplates {
  /** Seconds between the page's automatic refreshes; 0 turns them off. */
  refreshSeconds: number;
  /** How far back condition status changes count towards flapping. */
  flappingWindowSeconds: number;
  /** Condition status changes inside the window that make an object flapping. */
  flappingTransitions: number;
}

export const defaultStatusPage: StatusPageConfig = {
  dashboardUrl: undefined,
  traceUrl: undefined,
  refreshSeconds: 30,
  flappingWindowSeconds: 900,
  flappingTransitions: 4,
};

export const statusPageKeys = [
  "dashboardUrl",
  "traceUrl",
  "refresh",
  "flappingWindow",
  "flappingTransitions",
];

function template(c: Checker, path: string, value: unknown): string | undefined {
  const text = c.string(path, value);
  if (text === undefined) return undefined;
  const problem = templateProblem(text);
  return problem ? c.fail(path, problem, text) : text;
}

export function statusPageConfig(c: Checker, value: unknown): StatusPageConfig {
  if (value === undefined) return defaultStatusPage;
  const raw = c.object("statusPage", value, statusPageKeys);
  if (!raw) return defaultStatusPage;
  const d = defaultStatusPage;
  return {
    dashboardUrl: template(c, "statusPage.dashboardUrl", raw.dashboardUrl),
    traceUrl: template(c, "statusPage.traceUrl", raw.traceUrl),
    refreshSeconds: c.duration("statusPage.refresh", raw.refresh) ?? d.refreshSeconds,
    flappingWindowSeconds:
      c.duration("statusPage.flappingWindow", raw.flappingWindow) ?? d.flappingWindowSeconds,
    flappingTransitions:
      c.integer("statusPage.flappingTransitions", raw.flappingTransitions, 1) ?? d.flappingTransitions,
  };
}
