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

test("loopback detection is case-insensitive, takes brackets off, and anchors the IPv4-mapped prefix", () => {
  for (const host of ["LOCALHOST", "[::FFFF:127.0.0.1]", "[127.0.0.1]"]) {
    assert.equal(isLoopbackHost(host), true, host);
  }
  // An IPv6 address that merely ends in ::ffff:127.x, a name that starts like 127., an IPv4-mapped
  // address outside 127/8 and a name that ends in localhost are not loopback.
  for (const host of [
    "1::ffff:127.0.0.1",
    "127.example.com",
    "::ffff:10.0.0.1",
    "notlocalhost",
    "::2",
    "local[host",
    "local]host",
    "::ffff:127.example",
  ]) {
    assert.equal(isLoopbackHost(host), false, host);
  }
});

test("the refusal says why and what to do", () => {
  assert.throws(
    () => assertLoopbackUnlessAllowed({ host: "10.0.0.1", port: 8001 }, false, "apiProxy.listen"),
    {
      message:
        'apiProxy.listen: refusing to listen on non-loopback address "10.0.0.1": ' +
        "the proxy forwards the credentials of any caller that can reach it; " +
        "use 127.0.0.1 or set allowNonLoopback explicitly",
    },
  );
});
