// Cutting label values: a value up to the limit is kept as is; a longer one is
// cut so that it ends in the marker and fits the limit, without splitting a
// surrogate pair (a lone half is not valid UTF-8 on the wire).
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  capLabelValue,
  cutText,
  maxLabelValueLength,
  truncationMarker,
} from "../../src/core/label-values.ts";

test("a value up to the limit is kept as it is", () => {
  assert.equal(cutText("", 5), "");
  assert.equal(cutText("abcde", 5), "abcde", "exactly the limit");
  assert.equal(capLabelValue("x".repeat(maxLabelValueLength)), "x".repeat(maxLabelValueLength));
});

test("a longer value keeps its start and ends in the marker, within the limit", () => {
  assert.equal(cutText("abcdef", 5), `abcd${truncationMarker}`);
  assert.equal(cutText("ab", 1), truncationMarker, "only the marker fits");
  const long = `${"0123456789".repeat(20)}`;
  const capped = capLabelValue(long);
  assert.equal(capped, long.slice(0, maxLabelValueLength - truncationMarker.length) + truncationMarker);
  assert.equal(capped.length, maxLabelValueLength);
  assert.equal(cutText("héllo wörld ✓", 8), `héllo w${truncationMarker}`, "non-ASCII text survives the copy");
});

test("a cut never ends in the first half of a surrogate pair", () => {
  const pair = "😀"; // \ud83d\ude00
  assert.equal(cutText(`abc${pair}def`, 5), `abc${truncationMarker}`, "the pair is dropped whole");
  assert.equal(
    cutText(`abcd${pair}ef`, 5),
    `abcd${truncationMarker}`,
    "cut before the pair: nothing to drop",
  );
  assert.equal(cutText(`ab${pair}cdef`, 5), `ab${pair}${truncationMarker}`, "cut after the pair: kept");
  // The bounds of the high-surrogate range, alone at the cut point.
  for (const high of ["\ud800", "\udbff"]) {
    assert.equal(
      cutText(`abc${high}\udc00xyz`, 5),
      `abc${truncationMarker}`,
      high.charCodeAt(0).toString(16),
    );
  }
  // Just outside it: a low surrogate or an ordinary character stays.
  for (const other of ["\ud7ff", "\udc00"]) {
    assert.equal(
      cutText(`abc${other}xyz`, 5),
      `abc${other}${truncationMarker}`,
      other.charCodeAt(0).toString(16),
    );
  }
});
