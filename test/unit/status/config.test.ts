import assert from "node:assert/strict";
import { test } from "node:test";
import { parseConfigText } from "../../../src/config/load.ts";
import { ConfigError } from "../../../src/config/validate.ts";

const cases: [string, string, RegExp][] = [
  [
    "an unknown placeholder",
    "statusPage:\n  dashboardUrl: https://g.example.com/d/x?var-name={nmae}\n",
    /statusPage\.dashboardUrl: expected placeholders among \{group\}.*\(found \{nmae\}\), got "https:\/\/g\.example\.com/,
  ],
  [
    "a script URL",
    "statusPage:\n  traceUrl: javascript:alert(1)\n",
    /statusPage\.traceUrl: expected an http\(s\) URL/,
  ],
  ["a bad refresh", "statusPage:\n  refresh: often\n", /statusPage\.refresh: expected a duration/],
  [
    "zero flapping transitions",
    "statusPage:\n  flappingTransitions: 0\n",
    /statusPage\.flappingTransitions: expected an integer ≥ 1, got 0/,
  ],
  [
    "an unknown key",
    "statusPage:\n  grafana: x\n",
    /statusPage\.grafana: unknown key \(allowed: dashboardUrl, traceUrl/,
  ],
];

for (const [title, yaml, expected] of cases) {
  test(`statusPage: ${title} is rejected naming the field and value`, () => {
    assert.throws(
      () => parseConfigText(yaml, "c.yaml"),
      (e: unknown) => e instanceof ConfigError && e.problems.some((p) => expected.test(p)),
    );
  });
}

test("statusPage: values and defaults", () => {
  const config = parseConfigText(
    "statusPage:\n  traceUrl: http://127.0.0.1:16686/trace/{traceId}\n  refresh: 0s\n  flappingWindow: 1h\n",
    "c.yaml",
  );
  assert.deepEqual(config.statusPage, {
    dashboardUrl: undefined,
    traceUrl: "http://127.0.0.1:16686/trace/{traceId}",
    refreshSeconds: 0,
    flappingWindowSeconds: 3600,
    flappingTransitions: 4,
  });
  assert.equal(parseConfigText("{}", "c.yaml").statusPage.refreshSeconds, 30);
});
