// biome-ignore-all lint/suspicious/noTemplateCurlyInString: Grafana variables and macros, resolved by Grafana
// The links of the dashboards: a not-Ready object's row to its own dashboard
// (carrying the row's object and the current pickers), and Grafana Explore on
// the `traces` data source variable: the spans of one object (searched by the
// exporter's span attributes, in the query language of the configured
// backend), and one trace by id (exemplars).
import type { DashboardOptions } from "./options.ts";

const TRACES_UID = "${traces}";

/** The drill-down link of a table row: the row's object, the same data sources, exporter and time range. */
export function drillDownUrl(options: DashboardOptions, drillDownUid: string): string {
  const row = (label: string) => `var-${label}=\${__data.fields.${label}}`;
  return [
    `/d/${drillDownUid}?\${__url_time_range}`,
    "${datasource:queryparam}",
    "${traces:queryparam}",
    "${job:queryparam}",
    options.multiCluster ? row("cluster") : "${cluster:queryparam}",
    row("namespace"),
    row("kind"),
    row("name"),
  ].join("&");
}

/** An Explore URL with one pane; `${…}` variables stay readable (Grafana interpolates them before opening). */
function explore(query: Record<string, unknown>, options: DashboardOptions): string {
  const pane = {
    datasource: TRACES_UID,
    queries: [{ refId: "A", datasource: { type: options.traces.datasourceType, uid: TRACES_UID }, ...query }],
    range: { from: "${__from}", to: "${__to}" },
  };
  return `/explore?schemaVersion=1&orgId=1&panes=${encodeURIComponent(JSON.stringify({ traces: pane }))
    .replaceAll("%24%7B", "${")
    .replaceAll("%7D", "}")}`;
}

/**
 * The spans of the object picked in $cluster/$namespace/$kind/$name. Tempo:
 * TraceQL on the span attributes (cluster-scoped objects have no namespace
 * attribute, hence `= nil`). Jaeger: a search by service and tags.
 */
export function objectTracesUrl(options: DashboardOptions): string {
  const a = options.traces.attributes;
  if (options.traces.datasourceType === "jaeger") {
    const tags = [`${a.kind}=\${kind}`, `${a.name}=\${name}`];
    if (options.multiCluster) tags.push(`${a.cluster}=\${cluster}`);
    return explore(
      { queryType: "search", service: options.traces.serviceName, tags: tags.join(" ") },
      options,
    );
  }
  const clauses = [
    `span.${a.kind} =~ "\${kind:regex}"`,
    `span.${a.name} = "\${name}"`,
    `(span.${a.namespace} =~ "\${namespace:regex}" || span.${a.namespace} = nil)`,
  ];
  if (options.multiCluster) clauses.push(`resource.${a.cluster} =~ "\${cluster:regex}"`);
  return explore({ queryType: "traceql", query: `{ ${clauses.join(" && ")} }` }, options);
}

/** One trace, by the id in the clicked value (the `trace_id` of an exemplar). Both backends take an id as the query. */
export function traceByIdUrl(options: DashboardOptions): string {
  const query = { query: "${__value.raw}" };
  return explore(
    options.traces.datasourceType === "tempo" ? { queryType: "traceql", ...query } : query,
    options,
  );
}
