// The `statusPage` section: links from the status page and the API to a
// Grafana dashboard and to traces, the page's auto-refresh, and what counts as
// flapping. Kept apart from validate.ts so the section reads in one place.
import { templateProblem } from "../status/links.ts";
import { custom, duration, type OptionValues, section, tableDefaults, whole } from "./option.ts";

const urlTemplate = (key: string, doc: string) =>
  custom<string | undefined>({
    key,
    doc,
    default: undefined,
    shown: "",
    schema: (Type) => Type.String({ minLength: 1 }),
    read: (c, path, value) => {
      const text = c.string(path, value);
      if (text === undefined) return undefined;
      const problem = templateProblem(text);
      return problem ? c.fail(path, problem, text) : text;
    },
  });

const statusPageTable = {
  dashboardUrl: urlTemplate(
    "dashboardUrl",
    "Link from each object to a dashboard; a URL template of {group} {version} {kind} {namespace} {name} {uid}.",
  ),
  traceUrl: urlTemplate(
    "traceUrl",
    "Link from each object to its trace; a URL template of {traceId} (and the others).",
  ),
  refreshSeconds: duration("refresh", "The page refreshes itself this often (0s: never).", 30, "30s"),
  flappingWindowSeconds: duration(
    "flappingWindow",
    "Condition status changes within this window count towards flapping.",
    900,
    "15m",
  ),
  flappingTransitions: whole(
    "flappingTransitions",
    'This many changes in the window make an object "flapping".',
    1,
    4,
  ),
};

/** Links to dashboards and traces, the page's auto-refresh, and what counts as flapping. */
export type StatusPageConfig = OptionValues<typeof statusPageTable>;

export const defaultStatusPage: StatusPageConfig = tableDefaults(statusPageTable);

export const statusPageSection = section({
  key: "statusPage",
  doc: "The status page (/), the JSON API (/api/v1/…) and `cr-status-exporter status` (docs/api.md).",
  table: statusPageTable,
  default: defaultStatusPage,
  finish: (_c, _path, values) => values,
});
