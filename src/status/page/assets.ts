// The page's only style sheet and script, inlined, and the Content-Security-
// Policy that allows exactly these two by hash and nothing else inline: no
// other script, no event-handler attribute, no style attribute, no frames, no
// foreign origin. The script only refreshes the page's sections in place; the
// page works the same without it.
import { createHash } from "node:crypto";

export const pageCss = `
:root { color-scheme: light dark; --bg: #fff; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de;
  --head: #f6f8fa; --bad: #b42318; --warn: #8a5300; --good: #1a7f37; --link: #0a58ca; --focus: #0a58ca; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --head: #161b22;
    --bad: #ff7b72; --warn: #e3b341; --good: #56d364; --link: #79c0ff; --focus: #79c0ff; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; }
header, main, footer { padding: 0 1.25rem; max-width: 110rem; margin: 0 auto; }
header { padding-top: 1rem; }
h1 { font-size: 1.4rem; margin: 0 0 .25rem; }
h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
a { color: var(--link); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: 0; background: var(--bg); padding: .5rem; }
.skip:focus { left: 1rem; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.muted, small { color: var(--muted); }
/* position: the sr-only labels (absolute) inside stay in the scroll box instead of widening the page. */
.scroll { overflow-x: auto; position: relative; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: .35rem .6rem; border-bottom: 1px solid var(--line); }
thead th { background: var(--head); position: sticky; top: 0; }
table.compact { width: auto; }
.rows th, .nowrap { white-space: nowrap; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
.msg { max-width: 40rem; overflow-wrap: anywhere; white-space: pre-wrap; }
.Failed, .bad { color: var(--bad); font-weight: 600; }
.InProgress, .Terminating, .Unknown, .warn { color: var(--warn); font-weight: 600; }
.Current { color: var(--good); }
form { display: flex; flex-wrap: wrap; gap: .75rem 1rem; align-items: end; }
form label { display: flex; flex-direction: column; gap: .15rem; font-size: .85rem; color: var(--muted); }
input, select, button { font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--line);
  border-radius: 4px; padding: .3rem .45rem; }
button { cursor: pointer; }
nav.pages { margin: .75rem 0; display: flex; gap: 1rem; }
details summary { cursor: pointer; color: var(--link); }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .1rem .75rem; margin: .4rem 0; }
dt { color: var(--muted); }
dd { margin: 0; }
.error { border: 1px solid var(--bad); padding: .5rem .75rem; border-radius: 4px; }
footer { margin: 2rem auto 1rem; color: var(--muted); }
/* Narrow screens (phones from 360 px): each object a block of labelled lines, nothing off-screen. */
@media (max-width: 48rem) {
  header, main, footer { padding: 0 .75rem; }
  table.objects thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  table.objects, table.objects tbody, table.objects tr, table.objects td, table.objects th { display: block; }
  table.objects tr { border-bottom: 2px solid var(--line); padding: .5rem 0; }
  table.objects td, table.objects th { border: 0; padding: .1rem 0; white-space: normal; }
  table.objects th[scope="row"] { font-size: 1.05rem; }
  table.objects td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); font-size: .85rem; }
  table.objects td br { display: none; }
  table.objects td small, table.objects td .mark { margin-left: .5rem; }
  table.objects td:empty { display: none; }
  table.objects td[data-label="Links"] a { margin-right: 1rem; }
  .msg { max-width: none; }
  /* The objects first: on a phone the 3 a.m. question comes before the summary and the filters. */
  main { display: flex; flex-direction: column; }
  main > #objects { order: -1; }
}
`;

export const pageScript = `
(() => {
  const seconds = Number(document.body.dataset.refresh);
  const toggle = document.getElementById("auto-refresh");
  if (!(seconds > 0) || !toggle) return;
  let paused = false;
  toggle.hidden = false;
  toggle.addEventListener("click", () => {
    paused = !paused;
    toggle.textContent = paused ? "Resume auto-refresh" : "Pause auto-refresh";
    toggle.setAttribute("aria-pressed", String(paused));
  });
  const busy = () =>
    paused || document.hidden || document.activeElement?.closest("form") || document.querySelector("details[open]");
  async function refresh() {
    if (!busy()) {
      try {
        const response = await fetch(location.href, { headers: { Accept: "text/html" } });
        if (response.ok) {
          const next = new DOMParser().parseFromString(await response.text(), "text/html");
          for (const id of ["updated", "summary", "objects"]) {
            const fresh = next.getElementById(id);
            const current = document.getElementById(id);
            if (fresh && current) current.replaceWith(document.importNode(fresh, true));
          }
          document.title = next.title;
        }
      } catch {}
    }
    setTimeout(refresh, seconds * 1000);
  }
  setTimeout(refresh, seconds * 1000);
})();
`;

function sha256(text: string): string {
  return `'sha256-${createHash("sha256").update(text).digest("base64")}'`;
}

export const contentSecurityPolicy = [
  "default-src 'none'",
  `style-src ${sha256(pageCss)}`,
  `script-src ${sha256(pageScript)}`,
  "connect-src 'self'",
  "img-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");
