import assert from "node:assert/strict";
import { test } from "node:test";
import { parseHostPort } from "../../../src/server/listen.ts";
import { assertLoopbackUnlessAllowed, isLoopbackHost } from "../../../src/statuswrites/listen-address.ts";

test("parses host:port forms", () => {
  assert.deepEqual(parseHostPort("127.0.0.1:8001", "f"), { host: "127.0.0.1", port: 8001 });
  assert.deepEqual(parseHostPort("[::1]:0", "f"), { host: "::1", port: 0 });
  assert.deepEqual(parseHostPort("localhost:9", "f"), { host: "localhost", port: 9 });
  assert.deepEqual(parseHostPort(":8443", "f"), { host: "", port: 8443 });
});

test("rejects malformed addresses naming the field and value", () => {
  for (const bad of ["127.0.0.1", "127.0.0.1:", "127.0.0.1:70000", "::1:80", "host:port", ""]) {
    assert.throws(
      () => parseHostPort(bad, "apiProxy.listen"),
      (error: unknown) =>
        error instanceof Error &&
        error.message.startsWith("apiProxy.listen:") &&
        error.message.includes(JSON.stringify(bad)),
      bad,
    );
  }
});

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
