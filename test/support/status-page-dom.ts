// What the status page shows, read out of a real browser page: the rows of
// the objects table, and the binding calls an injected script would make.
import assert from "node:assert/strict";
import type { BrowserPage } from "../browser/chromium.ts";

export interface Row {
  name: string;
  namespace: string;
  status: string;
  reason: string;
  message: string;
  since: string;
  links: string[];
}

export function rows(page: BrowserPage): Promise<Row[]> {
  return page.evaluate(`[...document.querySelectorAll("tbody.rows tr")].map((tr) => {
    const cells = tr.children;
    return {
      name: cells[2].textContent.trim(),
      namespace: cells[1].textContent.trim(),
      status: cells[3].querySelector("span").textContent,
      reason: cells[4].textContent.trim(),
      message: cells[5].firstChild?.nodeType === Node.TEXT_NODE ? cells[5].firstChild.textContent : "",
      since: cells[6].querySelector("time")?.textContent ?? "",
      links: [...cells[8].querySelectorAll("a")].map((a) => a.getAttribute("href")),
    };
  })`);
}

/** Polls `probe` until it returns a value, or fails with what was last seen. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    last = await probe();
    if (last !== undefined) return last as T;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} not seen within ${timeoutMs} ms; last: ${JSON.stringify(last)}`);
}

/**
 * The `__xss(...)` calls made on the page (a binding added before loading),
 * once a sentinel call made after load has arrived: every earlier call has
 * arrived too.
 */
export async function callsAfterLoad(page: BrowserPage): Promise<string[]> {
  await page.evaluate(`__xss("sentinel")`);
  await eventually("the sentinel binding call", async () =>
    page.bindingCalls.includes("__xss(sentinel)") ? true : undefined,
  );
  return page.bindingCalls.filter((c) => c !== "__xss(sentinel)");
}

/** The ids (or tag:text) of what Tab focuses, in order, until `until` is focused or `max` presses. */
export async function tabOrder(page: BrowserPage, until: string, max = 60): Promise<string[]> {
  const focused: string[] = [];
  for (let i = 0; i < max && !focused.includes(until); i++) {
    await page.press("Tab");
    focused.push(
      await page.evaluate(
        `(() => { const e = document.activeElement; return e.id || e.tagName.toLowerCase() + ":" + e.textContent.trim().split("\\n")[0]; })()`,
      ),
    );
  }
  return focused;
}

/** The filter fields, in the order the keyboard should reach them. */
export const filterFields = [
  "f-show",
  "f-kind",
  "f-namespace",
  "f-name",
  "f-result",
  "f-condition",
  "f-reason",
  "f-lagging",
];

/** Tab from the top of a freshly loaded page reaches the skip link first, then every filter in order, then Apply. */
export async function assertKeyboardReachesFilters(page: BrowserPage): Promise<void> {
  const focused = await tabOrder(page, "button:Apply");
  assert.equal(focused[0], "a:Skip to the objects");
  const positions = filterFields.map((id) => focused.indexOf(id));
  assert.ok(
    positions.every((p, i) => p > 0 && (i === 0 || p > (positions[i - 1] as number))),
    `${focused}`,
  );
  assert.ok(focused.includes("button:Apply"), `${focused}`);
}
