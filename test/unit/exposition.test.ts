// The text-format primitives on their own: label value escaping, byte
// strings, label name sanitizing, label sets and sample values, each as the
// Prometheus text format spells them.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  byteString,
  encodeLabelValue,
  escapeHelp,
  escapeLabelValue,
  formatValue,
  fromByteString,
  renderLabels,
  sanitizeLabelName,
} from "../../src/core/series/exposition.ts";

test("label values escape backslash, double quote and line feed, each wherever and however often it occurs", () => {
  const cases: [string, string][] = [
    ["plain", "plain"],
    ["", ""],
    ['"', '\\"'],
    ["\\", "\\\\"],
    ["\n", "\\n"],
    ['a"b"c', 'a\\"b\\"c'],
    ["a\\b\\c", "a\\\\b\\\\c"],
    ["a\nb\nc", "a\\nb\\nc"],
    ['\\"\n', '\\\\\\"\\n'],
    ["tab\tand\rreturn", "tab\tand\rreturn"],
  ];
  for (const [value, escaped] of cases) assert.equal(escapeLabelValue(value), escaped, JSON.stringify(value));
});

test("HELP text escapes backslash and line feed (every one), not double quotes", () => {
  assert.equal(escapeHelp('a "quoted" \\ path\nnext\\\nline'), 'a "quoted" \\\\ path\\nnext\\\\\\nline');
});

test("byte strings: one character per UTF-8 byte; ASCII unchanged; the inverse gives the text back", () => {
  assert.equal(byteString("ready"), "ready");
  assert.equal(byteString("ü"), "\u00c3\u00bc");
  assert.equal(byteString("a€"), "a\u00e2\u0082\u00ac");
  assert.equal(fromByteString("\u00c3\u00bc"), "ü");
  assert.equal(fromByteString("ready"), "ready");
  for (const text of ["", "plain", "ü", "Grüße 🚀", "\u0080", "\uffff"])
    assert.equal(fromByteString(byteString(text)), text);
  // A lone byte ≥ 0x80 is non-ASCII too: the range starts at U+0080.
  assert.equal(byteString("\u0080"), "\u00c2\u0080");
});

test("an encoded label value is escaped first, then turned into bytes", () => {
  assert.equal(encodeLabelValue('ü"'), '\u00c3\u00bc\\"');
});

test("label names: invalid characters become _, a leading digit gets _, reserved __ prefixes shrink to one _", () => {
  const cases: [string, string][] = [
    ["app", "app"],
    ["app.kubernetes.io/name", "app_kubernetes_io_name"],
    ["Team-Name_2", "Team_Name_2"],
    ["9lives", "_9lives"],
    ["0", "_0"],
    ["a9", "a9"],
    ["__meta", "_meta"],
    ["___x", "_x"],
    ["_x", "_x"],
    ["x__y", "x__y"],
    ["-x", "_x"],
    ["--x", "_x"],
    ["", "_"],
    ["ü", "_"],
  ];
  for (const [name, sanitized] of cases)
    assert.equal(sanitizeLabelName(name), sanitized, JSON.stringify(name));
});

test('label sets: {a="x",b="y"} in order, values escaped, a missing value empty, no names no braces', () => {
  assert.equal(renderLabels([], []), "");
  assert.equal(renderLabels(["a"], ["x"]), '{a="x"}');
  assert.equal(renderLabels(["a", "b", "c"], ["x", 'y"', "ü"]), '{a="x",b="y\\"",c="\u00c3\u00bc"}');
  assert.equal(renderLabels(["a", "b"], ["x"]), '{a="x",b=""}');
});

test("sample values: NaN and infinities spelled as Prometheus parses them, numbers as JavaScript prints them", () => {
  assert.equal(formatValue(Number.NaN), "NaN");
  assert.equal(formatValue(Number.POSITIVE_INFINITY), "+Inf");
  assert.equal(formatValue(Number.NEGATIVE_INFINITY), "-Inf");
  assert.equal(formatValue(0), "0");
  assert.equal(formatValue(-1.5), "-1.5");
  assert.equal(formatValue(1767225600), "1767225600");
});
