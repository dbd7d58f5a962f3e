// RFC 3339 timestamps: the API's own form `YYYY-MM-DDTHH:MM:SSZ` is decoded by
// arithmetic, everything else by Date.parse, and both give the same second.
// Date.parse is the reference: the arithmetic is only there for speed.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { parseTimestamp } from "../../src/core/project/timestamps.ts";

const reference = (text: string): number | undefined => {
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined;
};

const two = (n: number): string => String(n).padStart(2, "0");
const apiForm = (y: number, mo: number, d: number, h: number, mi: number, s: number): string =>
  `${String(y).padStart(4, "0")}-${two(mo)}-${two(d)}T${two(h)}:${two(mi)}:${two(s)}Z`;

/** Calls of Date.parse while `run` runs. */
function dateParseCalls(run: () => void): string[] {
  const original = Date.parse;
  const calls: string[] = [];
  Date.parse = (text: string) => {
    calls.push(text);
    return original(text);
  };
  try {
    run();
  } finally {
    Date.parse = original;
  }
  return calls;
}

test("a timestamp in the API's form gives its Unix second", () => {
  assert.equal(parseTimestamp("1970-01-01T00:00:00Z"), 0);
  assert.equal(parseTimestamp("2024-02-29T12:34:56Z"), 1709210096);
  assert.equal(parseTimestamp("2000-03-01T00:00:00Z"), 951868800, "2000 is a leap year (divisible by 400)");
  assert.equal(parseTimestamp("2100-03-01T00:00:00Z"), 4107542400, "2100 is not (divisible by 100)");
  assert.equal(parseTimestamp("1969-12-31T23:59:59Z"), -1);
  assert.equal(parseTimestamp("9999-12-31T23:59:59Z"), 253402300799);
});

test("every valid date and time in the API's form equals Date.parse's second", () => {
  fc.assert(
    fc.property(
      fc.date({
        min: new Date("0000-01-01T00:00:00Z"),
        max: new Date("9999-12-31T23:59:59Z"),
        noInvalidDate: true,
      }),
      (date) => {
        const text = `${date.toISOString().slice(0, 19)}Z`;
        assert.equal(parseTimestamp(text), Math.floor(date.getTime() / 1000), text);
      },
    ),
    { numRuns: 2000 },
  );
  // Each month's first and last day, in a leap and a common year, at the day's ends.
  for (const year of [1970, 1999, 2000, 2023, 2024, 2100]) {
    for (let month = 1; month <= 12; month++) {
      const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
      for (const [day, hour, minute, second] of [
        [1, 0, 0, 0],
        [last, 23, 59, 59],
      ] as const) {
        const text = apiForm(year, month, day, hour, minute, second);
        assert.equal(parseTimestamp(text), reference(text), text);
      }
    }
  }
});

test("the API's form is decoded without Date.parse (it is on every object several times)", () => {
  const valid = [
    "1970-01-01T00:00:00Z",
    "2024-01-31T23:59:59Z",
    "2024-02-29T00:00:00Z",
    "2023-02-28T00:00:00Z",
    "2024-04-30T10:20:30Z",
    "2024-12-31T23:59:59Z",
    "1969-07-20T20:17:40Z",
    "0000-01-01T00:00:00Z",
  ];
  assert.deepEqual(
    dateParseCalls(() => {
      for (const text of valid) parseTimestamp(text);
    }),
    [],
  );
  // Other forms do go through Date.parse (and are still read).
  assert.deepEqual(
    dateParseCalls(() => assert.equal(parseTimestamp("2024-01-01T00:00:00.5Z"), 1704067200)),
    ["2024-01-01T00:00:00.5Z"],
  );
});

test("a string of the API's length and shape with fields out of range reads as Date.parse reads it", () => {
  const odd = [
    "2024-00-10T00:00:00Z", // month 0
    "2024-13-10T00:00:00Z", // month 13
    "2024-19-10T00:00:00Z",
    "2024-01-00T00:00:00Z", // day 0
    "2024-01-32T00:00:00Z",
    "2024-04-31T00:00:00Z", // a day past the month's end (Date.parse rolls it over)
    "2023-02-29T00:00:00Z", // not a leap year
    "2100-02-29T00:00:00Z",
    "2024-02-30T00:00:00Z",
    "2024-01-01T24:00:00Z", // the end of the day, for Date.parse
    "2024-01-01T25:00:00Z",
    "2024-01-01T23:60:00Z",
    "2024-01-01T23:59:60Z",
    "2024-01-01T99:99:99Z",
  ];
  for (const text of odd) assert.equal(parseTimestamp(text), reference(text), text);
  assert.equal(parseTimestamp("2024-13-10T00:00:00Z"), undefined);
  assert.equal(parseTimestamp("2024-01-00T00:00:00Z"), undefined);
  assert.equal(parseTimestamp("2024-01-01T25:00:00Z"), undefined);
});

test("a non-digit where a digit belongs, or another separator, is not read as a number", () => {
  const base = "2024-05-17T08:09:10Z";
  for (let i = 0; i < base.length; i++) {
    for (const ch of ["/", ":", "-", "a", " ", "Z", "T", "+"]) {
      if (base[i] === ch) continue;
      const text = base.slice(0, i) + ch + base.slice(i + 1);
      assert.equal(parseTimestamp(text), reference(text), JSON.stringify(text));
    }
  }
  assert.equal(parseTimestamp("2024-05-17T08:09:1aZ"), undefined);
  assert.equal(parseTimestamp("2024-05-17T0/:09:10Z"), undefined);
  assert.equal(parseTimestamp("2024-05-17T08:09:10Zjunk"), undefined, "trailing text");
  assert.equal(parseTimestamp("2024-05-17T08:09:10"), reference("2024-05-17T08:09:10"));
});

test("fractions are dropped, offsets applied, and anything else is undefined", () => {
  assert.equal(parseTimestamp("2024-01-01T00:00:00.999Z"), 1704067200);
  assert.equal(parseTimestamp("1969-12-31T23:59:59.5Z"), -1, "down, not toward zero");
  assert.equal(parseTimestamp("2024-01-01T02:00:00+02:00"), 1704067200);
  for (const value of ["", "yesterday", undefined, null, 1704067200, {}, ["2024-01-01T00:00:00Z"]]) {
    assert.equal(parseTimestamp(value), undefined, JSON.stringify(value));
  }
});
