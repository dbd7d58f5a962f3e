// The streaming digest that tells whether what mattered about an object
// changed: equal inputs give equal values, and any difference in the pieces,
// their order or where one text ends and the next begins gives another value.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { Hasher } from "../../src/core/project/digest.ts";

const ofTexts = (...texts: string[]): number => {
  const h = new Hasher();
  for (const t of texts) h.text(t);
  return h.value();
};
const ofNumbers = (...numbers: (number | undefined)[]): number => {
  const h = new Hasher();
  for (const n of numbers) h.number(n);
  return h.value();
};

test("the same pieces give the same value, in a fresh hasher every time", () => {
  assert.equal(ofTexts("Ready", "True"), ofTexts("Ready", "True"));
  assert.equal(ofNumbers(3, undefined), ofNumbers(3, undefined));
  const h = new Hasher().text("a");
  assert.equal(h.value(), h.value(), "value() does not consume the state");
  assert.equal(h.text("b"), h, "chainable");
});

test("values are non-negative integers of at most 53 bits (exact as numbers)", () => {
  fc.assert(
    fc.property(fc.array(fc.string()), fc.array(fc.double()), (texts, numbers) => {
      const h = new Hasher();
      for (const t of texts) h.text(t);
      for (const n of numbers) h.number(n);
      const v = h.value();
      assert.ok(Number.isSafeInteger(v) && v >= 0, String(v));
    }),
  );
  // Both halves of the state reach the value: its high 21 bits are used.
  const high = new Set(Array.from({ length: 64 }, (_, i) => Math.floor(ofTexts(`k${i}`) / 2 ** 32)));
  assert.ok(high.size > 32, `high parts seen: ${[...high].join(", ")}`);
  assert.ok(Math.max(...high) >= 2 ** 20, "the high part spans 21 bits");
});

test("a difference in any piece changes the value", () => {
  const seen = new Map<number, string>();
  const keep = (value: number, what: string): void => {
    assert.equal(seen.get(value), undefined, `${what} collides with ${seen.get(value)}`);
    seen.set(value, what);
  };
  keep(ofTexts(), "nothing");
  keep(ofTexts(""), "one empty text");
  keep(ofTexts("", ""), "two empty texts");
  for (let i = 0; i < 3000; i++) keep(ofTexts(`cond-${i}`), `text ${i}`);
  for (const c of ["a", "b", "A", "\u0000", "\u00ff", "\u0100", "\uffff", "ab", "ba"]) keep(ofTexts(c), c);
  keep(ofNumbers(0), "0");
  keep(ofNumbers(undefined), "undefined");
  keep(ofNumbers(0, 0), "0, 0");
  for (let i = 1; i < 2000; i++) keep(ofNumbers(i), `number ${i}`);
  keep(ofNumbers(2 ** 32), "2^32");
  keep(ofNumbers(2 ** 33), "2^33");
  keep(ofNumbers(5 * 2 ** 32 + 7), "5 * 2^32 + 7");
});

test("where one text ends and the next begins matters, and so does the order", () => {
  assert.notEqual(ofTexts("ab", "c"), ofTexts("a", "bc"));
  assert.notEqual(ofTexts("abc"), ofTexts("ab", "c"));
  assert.notEqual(ofTexts("a", "b"), ofTexts("b", "a"));
  assert.notEqual(ofNumbers(1, 2), ofNumbers(2, 1));
  assert.notEqual(new Hasher().text("x").number(1).value(), new Hasher().number(1).text("x").value());
});

test("undefined is a number of its own, apart from 0 (a missing generation is not generation 0)", () => {
  assert.notEqual(ofNumbers(undefined), ofNumbers(0));
  assert.notEqual(ofNumbers(undefined), ofNumbers(1));
});
