// CRD selectors: group globs (`*` is the only wildcard, everything else is
// literal and the whole name must match) and equality-based label selectors.
import assert from "node:assert/strict";
import { test } from "node:test";
import { globMatch, labelsMatch, parseLabelSelector } from "../../src/core/selectors.ts";

test("a glob's * matches any run of characters, including none, and the whole name must match", () => {
  assert.ok(globMatch("*.example.com", "widgets.example.com"));
  assert.ok(globMatch("*", ""));
  assert.ok(globMatch("*", "anything.at.all"));
  assert.ok(globMatch("cert-manager.io", "cert-manager.io"));
  assert.ok(globMatch("a*b*c", "a-x-b-y-c"), "every * is a wildcard, not only the first");
  assert.ok(globMatch("a*b*c", "abc"));
  assert.equal(globMatch("example.com", "widgets.example.com"), false, "anchored at the start");
  assert.equal(globMatch("example", "example.com"), false, "anchored at the end");
  assert.equal(globMatch("*.example.com", "example.com"), false);
  assert.equal(globMatch("a*b*c", "a-x-c"), false);
});

test("every character of a glob but * is literal, regular-expression characters too", () => {
  const special = "a.b+c?d^e$f{1}g(h)i|j[k]l\\m";
  assert.ok(globMatch(special, special));
  for (const [pattern, text] of [
    ["a.b", "axb"],
    ["ab+", "abb"],
    ["ab?", "a"],
    ["^ab", "ab"],
    ["ab$", "ab"],
    ["a{2}", "aa"],
    ["(a)", "a"],
    ["a|b", "a"],
    ["[ab]", "a"],
    ["a\\d", "a1"],
    ["a\\", "a\\"],
  ] as const) {
    assert.equal(globMatch(pattern, text), pattern === text, `${pattern} vs ${text}`);
  }
  assert.ok(globMatch("a\\", "a\\"), "a trailing backslash is a backslash");
});

test("label selector terms: key=value, key==value, key!=value, key and !key", () => {
  assert.deepEqual(parseLabelSelector("app=web,tier==front , env != prod,team, !legacy"), [
    { key: "app", op: "=", value: "web" },
    { key: "tier", op: "=", value: "front" },
    { key: "env", op: "!=", value: "prod" },
    { key: "team", op: "exists", value: "" },
    { key: "legacy", op: "!exists", value: "" },
  ]);
  assert.deepEqual(parseLabelSelector("example.com/part-of = my_app.v1"), [
    { key: "example.com/part-of", op: "=", value: "my_app.v1" },
  ]);
  assert.deepEqual(parseLabelSelector("empty="), [{ key: "empty", op: "=", value: "" }], "an empty value");
  assert.deepEqual(parseLabelSelector(""), []);
  assert.deepEqual(
    parseLabelSelector(" , ,a"),
    [{ key: "a", op: "exists", value: "" }],
    "empty terms skipped",
  );
});

test("anything else in a label selector is refused, naming the term", () => {
  for (const term of ["a in (b)", "@a=b", "a=b@", "a=b=c", "a@", "@a", "!!a", "a!", "a<b", "=b"]) {
    assert.throws(
      () => parseLabelSelector(`ok=1,${term}`),
      (e: Error) =>
        e.message === `unsupported label selector term "${term}" (use key=value, key!=value, key or !key)`,
      term,
    );
  }
});

test("labels match when every term holds", () => {
  const labels = { app: "web", tier: "front" };
  assert.ok(labelsMatch("", labels));
  assert.ok(labelsMatch("app=web", labels));
  assert.equal(labelsMatch("app=db", labels), false);
  assert.equal(labelsMatch("zone=", labels), false, "= needs the label present");
  assert.ok(labelsMatch("app!=db", labels));
  assert.equal(labelsMatch("app!=web", labels), false);
  assert.ok(labelsMatch("zone!=a", labels), "!= holds when the label is absent");
  assert.ok(labelsMatch("tier", labels));
  assert.equal(labelsMatch("zone", labels), false);
  assert.ok(labelsMatch("!zone", labels));
  assert.equal(labelsMatch("!tier", labels), false);
  assert.equal(labelsMatch("app=web,!tier", labels), false, "every term, not any");
  assert.ok(labelsMatch("app=web,tier=front", labels));
});
