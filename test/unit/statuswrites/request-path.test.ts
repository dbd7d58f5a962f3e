import assert from "node:assert/strict";
import { test } from "node:test";
import { isStatusWrite, parseResourceRequest } from "../../../src/statuswrites/request-path.ts";

const cases: {
  method: string;
  url: string;
  expected: Record<string, string> | undefined;
  statusWrite?: boolean;
}[] = [
  {
    method: "PUT",
    url: "/apis/example.com/v1/namespaces/ns1/widgets/w1/status",
    expected: {
      group: "example.com",
      version: "v1",
      resource: "widgets",
      namespace: "ns1",
      name: "w1",
      subresource: "status",
      verb: "update",
    },
    statusWrite: true,
  },
  {
    method: "PATCH",
    url: "/apis/example.com/v1/namespaces/ns1/widgets/w1/status?fieldManager=op&force=true",
    expected: {
      group: "example.com",
      version: "v1",
      resource: "widgets",
      namespace: "ns1",
      name: "w1",
      subresource: "status",
      verb: "patch",
    },
    statusWrite: true,
  },
  {
    method: "PATCH",
    url: "/apis/example.com/v1/gadgets/g1/status",
    expected: {
      group: "example.com",
      version: "v1",
      resource: "gadgets",
      namespace: "",
      name: "g1",
      subresource: "status",
      verb: "patch",
    },
    statusWrite: true,
  },
  {
    method: "PUT",
    url: "/apis/example.com/v1/namespaces/ns1/widgets/w1",
    expected: {
      group: "example.com",
      version: "v1",
      resource: "widgets",
      namespace: "ns1",
      name: "w1",
      subresource: "",
      verb: "update",
    },
    statusWrite: false,
  },
  {
    method: "GET",
    url: "/apis/example.com/v1/namespaces/ns1/widgets/w1/status",
    expected: {
      group: "example.com",
      version: "v1",
      resource: "widgets",
      namespace: "ns1",
      name: "w1",
      subresource: "status",
      verb: "get",
    },
    statusWrite: false,
  },
  {
    method: "GET",
    url: "/apis/example.com/v1/namespaces/ns1/widgets?watch=true&resourceVersion=5",
    expected: {
      group: "example.com",
      version: "v1",
      resource: "widgets",
      namespace: "ns1",
      name: "",
      subresource: "",
      verb: "watch",
    },
    statusWrite: false,
  },
  {
    method: "GET",
    url: "/apis/example.com/v1/widgets",
    expected: {
      group: "example.com",
      version: "v1",
      resource: "widgets",
      namespace: "",
      name: "",
      subresource: "",
      verb: "list",
    },
  },
  {
    method: "DELETE",
    url: "/apis/example.com/v1/namespaces/ns1/widgets",
    expected: {
      group: "example.com",
      version: "v1",
      resource: "widgets",
      namespace: "ns1",
      name: "",
      subresource: "",
      verb: "deletecollection",
    },
  },
  {
    method: "PUT",
    url: "/api/v1/namespaces/ns1/pods/p1/status",
    expected: {
      group: "",
      version: "v1",
      resource: "pods",
      namespace: "ns1",
      name: "p1",
      subresource: "status",
      verb: "update",
    },
    statusWrite: true,
  },
  {
    // The Namespace object's own status, not a collection called "status".
    method: "PUT",
    url: "/api/v1/namespaces/ns1/status",
    expected: {
      group: "",
      version: "v1",
      resource: "namespaces",
      namespace: "",
      name: "ns1",
      subresource: "status",
      verb: "update",
    },
    statusWrite: true,
  },
  {
    method: "POST",
    url: "/api/v1/namespaces/ns1/configmaps",
    expected: {
      group: "",
      version: "v1",
      resource: "configmaps",
      namespace: "ns1",
      name: "",
      subresource: "",
      verb: "create",
    },
  },
  {
    method: "GET",
    url: "/api/v1/namespaces/ns1",
    expected: {
      group: "",
      version: "v1",
      resource: "namespaces",
      namespace: "",
      name: "ns1",
      subresource: "",
      verb: "get",
    },
  },
  {
    method: "PATCH",
    url: "/apis/example.com/v1/namespaces/ns%201/widgets/w1/status",
    expected: {
      group: "example.com",
      version: "v1",
      resource: "widgets",
      namespace: "ns 1",
      name: "w1",
      subresource: "status",
      verb: "patch",
    },
    statusWrite: true,
  },
  { method: "GET", url: "/apis", expected: undefined },
  { method: "GET", url: "/apis/example.com/v1", expected: undefined },
  { method: "GET", url: "/api/v1", expected: undefined },
  { method: "GET", url: "/healthz", expected: undefined },
  { method: "GET", url: "/apis/example.com/v1/watch/namespaces/ns1/widgets", expected: undefined },
  {
    method: "PATCH",
    url: "/apis/example.com/v1/namespaces/ns1/widgets/w1/status/extra",
    expected: undefined,
  },
  {
    method: "PATCH",
    url: "/apis/example.com/v1/namespaces/ns1/widgets/%E0%A4%A/status",
    expected: undefined,
  },
  { method: "OPTIONS", url: "/apis/example.com/v1/namespaces/ns1/widgets/w1/status", expected: undefined },
];

for (const { method, url, expected, statusWrite } of cases) {
  test(`${method} ${url}`, () => {
    const parsed = parseResourceRequest(method, url);
    assert.deepEqual(parsed, expected);
    if (parsed && statusWrite !== undefined) assert.equal(isStatusWrite(parsed), statusWrite);
  });
}

test("verbs: HEAD reads like GET, methods in any case, watch only as watch=true or watch=1", () => {
  const verb = (method: string, url: string) => parseResourceRequest(method, url)?.verb;
  const one = "/apis/example.com/v1/namespaces/ns1/widgets/w1";
  const all = "/apis/example.com/v1/namespaces/ns1/widgets";
  assert.equal(verb("HEAD", one), "get");
  assert.equal(verb("HEAD", all), "list");
  assert.equal(verb("patch", `${one}/status`), "patch");
  assert.equal(verb("post", all), "create");
  assert.equal(verb("DELETE", one), "delete");
  assert.equal(verb("GET", `${all}?watch=1`), "watch");
  assert.equal(verb("GET", `${all}?limit=5&watch=true`), "watch");
  assert.equal(verb("GET", `${all}?watch=true&limit=5`), "watch");
  assert.equal(verb("HEAD", `${all}?watch=true`), "watch");
  assert.equal(verb("GET", `${all}?watch=false`), "list");
  assert.equal(verb("GET", `${all}?xwatch=true`), "list");
  assert.equal(verb("GET", `${all}?watch=truex`), "list");
  assert.equal(verb("GET", `${all}?watch=1x`), "list");
  assert.equal(verb("GET", `${one}?watch=true`.replace("?", "/status?")), "watch");
  assert.equal(verb("CONNECT", one), undefined);
});

test("paths: empty segments are skipped, the namespace list and a core collection in a namespace", () => {
  assert.deepEqual(parseResourceRequest("PUT", "//apis//example.com/v1/namespaces/ns1/widgets/w1/status"), {
    group: "example.com",
    version: "v1",
    resource: "widgets",
    namespace: "ns1",
    name: "w1",
    subresource: "status",
    verb: "update",
  });
  assert.deepEqual(parseResourceRequest("GET", "/api/v1/namespaces"), {
    group: "",
    version: "v1",
    resource: "namespaces",
    namespace: "",
    name: "",
    subresource: "",
    verb: "list",
  });
  assert.deepEqual(parseResourceRequest("GET", "/api/v1/namespaces/ns1/pods"), {
    group: "",
    version: "v1",
    resource: "pods",
    namespace: "ns1",
    name: "",
    subresource: "",
    verb: "list",
  });
  assert.equal(parseResourceRequest("PUT", "/api/v1/namespaces/ns1/finalize")?.subresource, "finalize");
  assert.equal(parseResourceRequest("PUT", "/api/v1/namespaces/ns1/finalize")?.namespace, "");
  // In a group, namespaces/{ns}/x is always a collection in that namespace.
  const grouped = parseResourceRequest("GET", "/apis/example.com/v1/namespaces/ns1/status");
  assert.deepEqual([grouped?.namespace, grouped?.resource, grouped?.name], ["ns1", "status", ""]);
  assert.equal(parseResourceRequest("GET", "/apis/example.com"), undefined);
  assert.equal(parseResourceRequest("GET", "/api"), undefined);
  assert.equal(parseResourceRequest("GET", "/other/v1/widgets"), undefined);
  assert.equal(parseResourceRequest("GET", "/api/v1/watch/pods"), undefined);
});

test("status writes are the write verbs on the status subresource", () => {
  const at = (method: string, url: string) => {
    const request = parseResourceRequest(method, url);
    assert.ok(request, url);
    return isStatusWrite(request);
  };
  const status = "/apis/example.com/v1/namespaces/ns1/widgets/w1/status";
  assert.equal(at("POST", status), true);
  assert.equal(at("DELETE", status), true);
  assert.equal(at("GET", status), false);
  assert.equal(at("PATCH", "/apis/example.com/v1/namespaces/ns1/widgets/w1/scale"), false);
});
