// The status page: what is not Ready, why, and since when, rendered on the
// server as one HTML document that reads without script. Filters are plain
// URL parameters (a GET form), so a filtered view is a link to share.
import { type StatusResult, statusResults } from "../../core/state.ts";
import { utcTime } from "../format.ts";
import type { OutputSettings } from "../json.ts";
import type { QueryPage } from "../query.ts";
import {
  filterToParams,
  type ObjectFilter,
  type ObjectQuery,
  type QueryError,
  sortOrders,
} from "../query-params.ts";
import type { Summary } from "../summary.ts";
import type { KindRef } from "../view.ts";
import { pageCss, pageScript } from "./assets.ts";
import { type Html, html, trustedConstant } from "./html.ts";
import { objectsTable } from "./objects-table.ts";

export interface PageModel {
  now: number;
  summary: Summary;
  /** The raw parameters, to refill the form (also when they were rejected). */
  params: URLSearchParams;
  query: ObjectQuery | undefined;
  page: QueryPage | undefined;
  error: QueryError | undefined;
  kinds: readonly KindRef[];
  settings: OutputSettings & { refreshSeconds: number };
}

function href(params: URLSearchParams): string {
  const text = params.toString();
  return text ? `/?${text}` : "/";
}

function count(n: number, filter: Record<string, string>, label: string): Html {
  return n === 0
    ? html`<td class="n muted">0</td>`
    : html`<td class="n"><a href="${href(new URLSearchParams(filter))}">${n}<span class="sr-only"> ${label}</span></a></td>`;
}

function summaryTable(summary: Summary): Html {
  const rows = summary.kinds.map((k) => {
    // notReady present and empty: all objects, Ready or not.
    const base = { kind: k.kind, group: k.group, notReady: "" };
    const cells = statusResults.map((r) => count(k.results[r], { ...base, result: r }, `${k.kind} ${r}`));
    return html`<tr><th scope="row">${k.kind}<br><small>${k.group}</small></th>
${count(k.total, base, `${k.kind} objects`)}${cells}
${count(k.lagging, { ...base, lagging: "true" }, `${k.kind} lagging`)}
${count(k.flapping, { ...base, flapping: "true" }, `${k.kind} flapping`)}</tr>`;
  });
  return html`<section id="summary" aria-labelledby="summary-h">
<h2 id="summary-h">Summary by kind</h2>
${
  summary.kinds.length === 0
    ? html`<p>No resource is watched yet.</p>`
    : html`<div class="scroll"><table class="compact">
<caption class="sr-only">Objects per kind and status</caption>
<thead><tr><th scope="col">Kind</th><th scope="col" class="n">Objects</th>${statusResults.map(
        (r) => html`<th scope="col" class="n">${r}</th>`,
      )}<th scope="col" class="n">Lagging</th><th scope="col" class="n">Flapping</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
}
</section>`;
}

function option(value: string, label: string, selected: string | undefined): Html {
  return html`<option value="${value}"${value === (selected ?? "") ? html` selected` : ""}>${label}</option>`;
}

function filtersForm(model: PageModel): Html {
  const p = model.params;
  const get = (name: string): string => p.get(name) ?? "";
  const kinds = [...new Set(model.kinds.map((k) => k.kind))].sort();
  // The page shows what needs attention unless told otherwise (withShown in status-routes.ts).
  const fromNotReady: Record<string, string> = { true: "notReady", false: "ready", "": "all" };
  const show = p.has("show")
    ? get("show")
    : p.has("notReady")
      ? (fromNotReady[get("notReady")] ?? "all")
      : "attention";
  const text = (name: string, label: string, hint: string) =>
    html`<label for="f-${name}">${label}<input id="f-${name}" name="${name}" value="${get(name)}" placeholder="${hint}"></label>`;
  const yesNo = (name: string, label: string) =>
    html`<label for="f-${name}">${label}<select id="f-${name}" name="${name}">${[
      option("", "either", get(name)),
      option("true", "yes", get(name)),
      option("false", "no", get(name)),
    ]}</select></label>`;
  return html`<section aria-labelledby="filters-h">
<h2 id="filters-h">Filters</h2>
<form role="search" method="get" action="/" aria-labelledby="filters-h">
<label for="f-show">Show<select id="f-show" name="show">${[
    option("attention", "not Ready or flapping", show),
    option("notReady", "not Ready", show),
    option("ready", "Ready", show),
    option("all", "all", show),
  ]}</select></label>
<label for="f-kind">Kind<select id="f-kind" name="kind">${[option("", "any", get("kind")), ...kinds.map((k) => option(k, k, get("kind")))]}</select></label>
${text("namespace", "Namespace", "any")}
${text("name", "Name contains", "")}
<label for="f-result">Status<select id="f-result" name="result">${[
    option("", "any", get("result")),
    ...statusResults.map((r: StatusResult) => option(r, r, get("result"))),
  ]}</select></label>
${text("condition", "Condition", "Ready=False")}
${text("reason", "Reason", "any")}
${yesNo("lagging", "Lagging")}${yesNo("terminating", "Terminating")}${yesNo("flapping", "Flapping")}
<label for="f-sort">Sort<select id="f-sort" name="sort">${sortOrders.map((s) => option(s, s, get("sort") || "notReady"))}</select></label>
<button type="submit">Apply</button> <a href="/">Clear</a>
</form>
</section>`;
}

function tableTitle(filter: ObjectFilter): string {
  if (filter.notReady === true) return "Not Ready objects";
  if (filter.attention === true) return "Not Ready or flapping objects";
  if (filter.notReady === false) return "Ready objects";
  return "Objects";
}

/** Next and first page: the same (already validated) parameters with another continue token. */
function pageLinks(model: PageModel): { next: string | undefined; first: string | undefined } {
  if (!model.query || !model.page) return { next: undefined, first: undefined };
  const base = new URLSearchParams(model.params);
  base.delete("continue");
  const next = new URLSearchParams(base);
  if (model.page.continueToken) next.set("continue", model.page.continueToken);
  return {
    next: model.page.continueToken ? href(next) : undefined,
    first: model.query.continueToken ? href(base) : undefined,
  };
}

export function renderStatusPage(model: PageModel): string {
  const { summary, now } = model;
  const total = summary.total;
  const { next, first } = pageLinks(model);
  const body = model.error
    ? html`<section id="objects" aria-labelledby="objects-h"><h2 id="objects-h">Objects</h2>
<p class="error" role="alert">Bad filter: ${model.error.message}</p></section>`
    : model.page && model.query
      ? objectsTable(model.page, tableTitle(model.query.filter), now, model.settings, next, first)
      : "";
  const apiParams = model.query ? filterToParams(model.query.filter).toString() : "";
  const api = apiParams ? `/api/v1/objects?${apiParams}` : "/api/v1/objects";
  const doc = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${total.notReady} not Ready of ${total.total} · cr-status-exporter</title>
<style>${trustedConstant(pageCss)}</style>
</head>
<body data-refresh="${model.settings.refreshSeconds}">
<a class="skip" href="#objects">Skip to the objects</a>
<header>
<h1>Custom resource status</h1>
<p id="updated">${total.total} objects watched · <strong class="${total.notReady > 0 ? "bad" : ""}">${total.notReady} not Ready</strong> · ${total.lagging} lagging · ${total.terminating} terminating · ${total.flapping} flapping · as of <time datetime="${new Date(now * 1000).toISOString()}">${utcTime(now)}</time></p>
<button type="button" id="auto-refresh" aria-pressed="false" hidden>Pause auto-refresh</button>
</header>
<main>
${summaryTable(summary)}
${filtersForm(model)}
${body}
</main>
<footer>The same as JSON: <a href="${api}">${api}</a> · <a href="/api/v1/summary">/api/v1/summary</a> · <a href="/metrics">/metrics</a></footer>
<script>${trustedConstant(pageScript)}</script>
</body>
</html>
`;
  return doc.text;
}
