import assert from "node:assert/strict";
import { test } from "node:test";
import { skipUnlessCi } from "../support/missing-tool.ts";

function withCi<T>(value: string | undefined, fn: () => T): T {
  const saved = process.env.CI;
  if (value === undefined) delete process.env.CI;
  else process.env.CI = value;
  try {
    return fn();
  } finally {
    if (saved === undefined) delete process.env.CI;
    else process.env.CI = saved;
  }
}

test("a missing tool skips locally and is an error naming it under CI=true", () => {
  withCi(undefined, () => assert.equal(skipUnlessCi("Go is not installed"), "Go is not installed"));
  withCi("false", () => assert.equal(skipUnlessCi("Go is not installed"), "Go is not installed"));
  withCi("true", () =>
    assert.throws(
      () => skipUnlessCi("Go is not installed"),
      /^Error: CI=true and Go is not installed: nothing may skip/,
    ),
  );
  for (const ci of [undefined, "true"]) withCi(ci, () => assert.equal(skipUnlessCi(undefined), undefined));
});
