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
