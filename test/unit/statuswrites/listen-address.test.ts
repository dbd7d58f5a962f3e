import assert from "node:assert/strict";
import { test } from "node:test";
import { assertLoopbackUnlessAllowed, isLoopbackHost } from "../../../src/statuswrites/listen-address.ts";

test("loopback detection", () => {
  for (const host of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "::ffff:127.0.0.1"]) {
    assert.equal(isLoopbackHost(host), true, host);
  }
  for (const host of ["0.0.0.0", "", "::", "10.0.0.1", "192.168.1.1", "example.com", "128.0.0.1"]) {
    assert.equal(isLoopbackHost(host), false, host);
  }
});

test("non-loopback addresses need the explicit flag", () => {
  assert.throws(
    () => assertLoopbackUnlessAllowed({ host: "0.0.0.0", port: 8001 }, false, "apiProxy.listen"),
    /apiProxy\.listen: refusing to listen on non-loopback address "0\.0\.0\.0".*allowNonLoopback/,
  );
  assert.doesNotThrow(() =>
    assertLoopbackUnlessAllowed({ host: "0.0.0.0", port: 8001 }, true, "apiProxy.listen"),
  );
  assert.doesNotThrow(() =>
    assertLoopbackUnlessAllowed({ host: "127.0.0.1", port: 8001 }, false, "apiProxy.listen"),
  );
});
