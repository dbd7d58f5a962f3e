// The objects table of the status page: one row per object with its status,
// reason, message (as text), since when (relative and absolute), generation
// lag and links; conditions and recent transitions fold out without script.
import { generationLag, isFlapping, isLagging, lagSeconds, stateSince, statusUnwritten } from "../derive.ts";
import { shortDuration, utcTime } from "../format.ts";
import type { OutputSettings } from "../json.ts";
import { objectLinks } from "../links.ts";
import type { QueryPage } from "../query.ts";
import type { ObjectView, TransitionRecord } from "../view.ts";
import { type Html, html } from "./html.ts";

function when(at: number | undefined, now: number): Html {
  if (at === undefined) return html`<span class="muted">—</span>`;
  const iso = new Date(at * 1000).toISOString();
  return html`<time datetime="${iso}">${shortDuration(now - at)}</time><br><small>${utcTime(at)}</small>`;
}

function lag(view: ObjectView, now: number): Html {
  if (!isLagging(view)) return html`<span class="muted">—</span>`;
  const generations = generationLag(view);
  const waited = view.generationRequestedAt === undefined ? undefined : shortDuration(lagSeconds(view, now));
  return html`<span class="warn">${generations === undefined ? "stale" : `${generations} gen`}</span>${
    waited ? html`<br><small>for ${waited}</small>` : ""
  }`;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function transition(t: TransitionRecord): string {
  const change = t.from !== undefined || t.to !== undefined ? ` ${t.from ?? "∅"} → ${t.to ?? "∅"}` : "";
  const subject = t.what === "condition" ? (t.type ?? "condition") : t.what;
  return `${subject}${change}${t.reason ? ` (${t.reason})` : ""}${t.message ? `: ${t.message}` : ""}`;
}

function details(view: ObjectView): Html {
  const conditions = view.conditions.map(
    (c) =>
      html`<dt>${c.type}</dt><dd>${c.status}${c.reason ? ` · ${c.reason}` : ""}${
        c.since !== undefined ? html` · <small>${utcTime(c.since)}</small>` : ""
      }${c.message ? html`<br>${c.message}` : ""}</dd>`,
  );
  const history = [...view.recentTransitions]
    .reverse()
    .map((t) => html`<dt><small>${utcTime(t.at)}</small></dt><dd>${transition(t)}</dd>`);
  return html`<details><summary>${plural(view.conditions.length, "condition")}, ${plural(view.recentTransitions.length, "recent change")}</summary>
<dl>${conditions}</dl>${history.length > 0 ? html`<dl>${history}</dl>` : ""}${
    view.phase ? html`<p>Phase: ${view.phase}</p>` : ""
  }</details>`;
}

/** What the status cell says under the result: the readiness condition, the phase, flapping, an unwritten status. */
function statusNotes(view: ObjectView, settings: OutputSettings, now: number): Html {
  const unwritten = statusUnwritten(view);
  const readyText = view.ready
    ? `${view.ready.type}=${view.ready.status}`
    : unwritten
      ? "status not written yet"
      : "no readiness condition";
  const window = shortDuration(settings.flappingWindowSeconds);
  const flapping = isFlapping(view, settings.flappingMinTransitions)
    ? html`<br><span class="mark warn" title="${`${view.transitionsInWindow} condition status changes in the last ${window}; the page calls ${settings.flappingMinTransitions} or more flapping (statusPage.flappingTransitions and flappingWindow); the CustomResourceReadyFlapping alert counts Ready changes over its own window`}">Flapping: ${view.transitionsInWindow} changes in ${window}</span>`
    : "";
  return html`<br>${unwritten ? html`<small class="mark">${readyText}</small>` : html`<small>${readyText}</small>`}${
    view.phase ? html`<br><small class="mark">phase ${view.phase}</small>` : ""
  }${flapping}${warningNote(view, now)}`;
}

/** The object's latest Kubernetes Warning event, as a line under its status. */
function warningNote(view: ObjectView, now: number): Html | string {
  const w = view.warning;
  if (!w) return "";
  return html`<br><small class="warning-event" title="${`Kubernetes Warning event ${w.reason} at ${utcTime(w.at)}: ${w.message}`}"><span class="warn">Warning ${w.reason}</span> ${shortDuration(Math.max(0, now - w.at))} ago${w.message ? `: ${w.message}` : ""}</small>`;
}

function row(view: ObjectView, now: number, settings: OutputSettings): Html {
  const links = objectLinks(view, settings.links);
  const reason = view.ready && view.ready.status !== "True" ? view.ready.reason : "";
  const message = view.ready && view.ready.status !== "True" ? view.ready.message : "";
  // A lagging object may be Ready=True still; say what it waits for.
  const waiting =
    !message && isLagging(view)
      ? html`<span class="muted">generation ${view.generation ?? "?"} not observed yet (status at ${
          view.observedGeneration ?? "none"
        })</span>`
      : "";
  return html`<tr>
<td data-label="Kind">${view.kind}<br><small>${view.group}</small></td>
<td data-label="Namespace">${view.namespace || html`<span class="muted">(cluster)</span>`}</td>
<th scope="row">${view.name}</th>
<td data-label="Status"><span class="${view.result}">${view.result}</span>${statusNotes(view, settings, now)}</td>
<td data-label="Reason">${reason}</td>
<td data-label="Message" class="msg">${message}${waiting}${details(view)}</td>
<td data-label="Since">${when(stateSince(view), now)}</td>
<td data-label="Lag" class="nowrap">${lag(view, now)}</td>
<td data-label="Links">${links.dashboard ? html`<a href="${links.dashboard}">Dashboard<span class="sr-only"> of ${view.name}</span></a><br>` : ""}${
    links.trace
      ? html`<a href="${links.trace}">Trace<span class="sr-only"> of ${view.name}</span></a><br>`
      : ""
  }<a href="/api/v1/objects/${encodeURIComponent(view.uid)}">JSON<span class="sr-only"> of ${view.name}</span></a></td>
</tr>`;
}

export function objectsTable(
  page: QueryPage,
  title: string,
  now: number,
  settings: OutputSettings,
  nextHref: string | undefined,
  firstHref: string | undefined,
): Html {
  const shown = page.items.length;
  const count =
    page.total === 0
      ? "No object matches."
      : `${page.total} match${page.total === 1 ? "" : "es"}; ${shown === page.total ? "all shown" : `${shown} shown on this page`}.`;
  return html`<section id="objects" aria-labelledby="objects-h">
<h2 id="objects-h">${title}</h2>
<p>${count}</p>
${
  shown > 0
    ? html`<div class="scroll"><table class="objects">
<caption class="sr-only">${title}: ${count}</caption>
<thead><tr><th scope="col">Kind</th><th scope="col">Namespace</th><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Reason</th><th scope="col">Message</th><th scope="col">Since</th><th scope="col">Lag</th><th scope="col">Links</th></tr></thead>
<tbody class="rows">${page.items.map((v) => row(v, now, settings))}</tbody>
</table></div>`
    : ""
}
${
  nextHref || firstHref
    ? html`<nav class="pages" aria-label="Pages">${firstHref ? html`<a href="${firstHref}">First page</a>` : ""}${
        nextHref ? html`<a href="${nextHref}" rel="next">Next page</a>` : ""
      }</nav>`
    : ""
}
</section>`;
}
