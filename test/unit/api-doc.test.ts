// docs/api.md's example answers have the shape the API answers with: each
// `$ curl -s '…'` example whose answer is whole JSON is asked of the real
// routes (over the status fixture fleet), and both must hold the same keys at
// the same places (values differ: another fleet, another time). An error
// example must also match word for word. A field added to the API, or one
// gone, fails here until the docs show it.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { statusFleet } from "../support/status-fleet.ts";
import { serveStatus } from "../support/status-server.ts";
import { fixedSource } from "../support/views.ts";

interface Example {
  path: string;
  answer: unknown;
}

/** The console blocks of docs/api.md that curl the API and show a whole JSON answer. */
function examples(): Example[] {
  const doc = readFileSync(new URL("../../docs/api.md", import.meta.url), "utf8");
  const out: Example[] = [];
  for (const block of doc.matchAll(
    /```console\n\$ curl -s '?http:\/\/127\.0\.0\.1:9184([^'\s]+)'?\n([\s\S]*?)```/g,
  )) {
    const [, path = "", body = ""] = block;
    try {
      out.push({ path, answer: JSON.parse(body) });
    } catch {
      // An elided example (…the list item's fields…): read, not checked.
    }
  }
  return out;
}

/** Every key path of a JSON value; array items merged, a null or empty array standing for any shape. */
function keyPaths(value: unknown, at = "", into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) keyPaths(item, `${at}[]`, into);
    return into;
  }
  if (value === null || typeof value !== "object") return into;
  for (const [key, child] of Object.entries(value)) {
    const path = `${at}.${key}`;
    into.add(path);
    keyPaths(child, path, into);
  }
  return into;
}

test("the documented examples are answers of the API, key for key", async (t) => {
  const found = examples();
  assert.ok(found.length >= 3, `examples found: ${found.map((e) => e.path).join(", ")}`);
  const base = await serveStatus(t, fixedSource(statusFleet()));
  for (const example of found) {
    const real = (await (await fetch(`${base}${example.path}`)).json()) as unknown;
    const documented = keyPaths(example.answer);
    const answered = keyPaths(real);
    const missing = [...answered].filter((p) => !documented.has(p) && !hiddenByNull(p, example.answer));
    const extra = [...documented].filter((p) => !answered.has(p) && !hiddenByNull(p, real));
    assert.deepEqual(
      { missing, extra },
      { missing: [], extra: [] },
      `${example.path}: keys the API answers with that docs/api.md lacks (missing), or shows but the API does not (extra)`,
    );
    if (example.path.includes("condition=Ready=Maybe")) assert.deepEqual(real, example.answer);
  }
});

/** The key path lies below a value that is null (or an empty list) in `other`. */
function hiddenByNull(path: string, other: unknown): boolean {
  const parts = path.split(".").slice(1);
  let at: unknown = other;
  for (const part of parts) {
    const key = part.replace(/\[\]$/, "");
    if (at === null) return true;
    if (Array.isArray(at)) at = at[0];
    if (at === undefined) return true;
    at = (at as Record<string, unknown>)[key];
    if (part.endsWith("[]")) {
      if (!Array.isArray(at) || at.length === 0) return true;
    }
  }
  return at === null;
}
