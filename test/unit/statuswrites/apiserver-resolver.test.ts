// The exporter's KindResolver over its own apiserver client: which paths it
// reads (discovery, the served group/versions, the namespace list in pages)
// and what it makes of refusals and errors. A fake GET stands in for the client.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createLogger } from "../../../src/log.ts";
import {
  type ApiGet,
  createApiserverKindResolver,
} from "../../../src/statuswrites/proxy/apiserver-resolver.ts";

type Answer = { status: number; body: unknown };

/** A GET answering from `routes` by path (a function for paged or changing answers); 404 otherwise. */
function fakeGet(routes: Record<string, Answer | ((query?: Record<string, unknown>) => Answer)>) {
  const calls: { path: string; query: Record<string, unknown> | undefined }[] = [];
  const get: ApiGet = async (path, query) => {
    calls.push({ path, query });
    const route = routes[path];
    if (route === undefined) return { status: 404, body: { kind: "Status" } };
    return typeof route === "function" ? route(query) : route;
  };
  return { get, calls };
}

function logSink() {
  const lines: { level: string; msg: string; [key: string]: unknown }[] = [];
  const logger = createLogger({ level: "debug", write: (line) => lines.push(JSON.parse(line)) });
  return { lines, logger };
}

const served: Record<string, Answer> = {
  "/api": { status: 200, body: { versions: ["v1", 7] } },
  "/apis": {
    status: 200,
    body: {
      groups: [
        { versions: [{ groupVersion: "example.com/v1" }, { groupVersion: 3 }] },
        { versions: [{ groupVersion: "apps/v1" }] },
        {},
      ],
    },
  },
};

test("a group's kinds come from /apis/{group}/{version}, the core group's from /api/{version}", async () => {
  const { get, calls } = fakeGet({
    ...served,
    "/apis/example.com/v1": { status: 200, body: { resources: [{ name: "widgets", kind: "Widget" }] } },
    "/api/v1": { status: 200, body: { resources: [{ name: "configmaps", kind: "ConfigMap" }] } },
  });
  const resolver = createApiserverKindResolver(get, logSink().logger);
  assert.equal(await resolver.kindOf("example.com", "v1", "widgets"), "Widget");
  assert.equal(await resolver.kindOf("", "v1", "configmaps"), "ConfigMap");
  assert.deepEqual(
    calls.map((c) => c.path),
    ["/api", "/apis", "/apis/example.com/v1", "/api/v1"],
  );
});

test("only served group/versions are asked about: strings from /api's versions and /apis' groupVersions", async () => {
  const { get, calls } = fakeGet({
    ...served,
    "/apis/apps/v1": { status: 200, body: { resources: [{ name: "deployments", kind: "Deployment" }] } },
  });
  const resolver = createApiserverKindResolver(get, logSink().logger);
  assert.equal(await resolver.kindOf("apps", "v1", "deployments"), "Deployment", "from the second group");
  assert.equal(await resolver.kindOf("made-up.example", "v1", "gizmos"), undefined);
  assert.equal(
    await resolver.kindOf("", "7", "things"),
    undefined,
    "a number in /api's versions is not served",
  );
  assert.equal(await resolver.kindOf("", "3", "things"), undefined, "nor a number as a groupVersion");
  assert.deepEqual(
    calls.map((c) => c.path),
    ["/api", "/apis", "/apis/apps/v1"],
    "no discovery request for what is not served (the served list is not asked again within its interval)",
  );
});

test("a discovery answer that is not 200 confirms nothing and is logged at debug with the group and version", async () => {
  const { lines, logger } = logSink();
  const { get } = fakeGet({
    ...served,
    "/apis/example.com/v1": { status: 503, body: {} },
  });
  const resolver = createApiserverKindResolver(get, logger);
  assert.equal(await resolver.kindOf("example.com", "v1", "widgets"), undefined);
  const line = lines.find((l) => l.msg === "kind discovery failed");
  assert.ok(line, JSON.stringify(lines));
  assert.equal(line.level, "debug");
  assert.equal(line.group, "example.com");
  assert.equal(line.version, "v1");
  assert.equal(line.error, "GET /apis/example.com/v1: HTTP 503");
});

test("a served list that cannot be read is logged, and nothing is asked about", async () => {
  const { lines, logger } = logSink();
  const { get, calls } = fakeGet({ "/api": { status: 200, body: {} }, "/apis": { status: 500, body: {} } });
  const resolver = createApiserverKindResolver(get, logger);
  assert.equal(await resolver.kindOf("example.com", "v1", "widgets"), undefined);
  assert.deepEqual(
    calls.map((c) => c.path),
    ["/api", "/apis"],
  );
  const line = lines.find((l) => l.msg === "kind discovery failed");
  assert.equal(line?.error, "GET /apis: HTTP 500");
});

test("namespaces are listed 500 at a time, following continue tokens to the last page", async () => {
  const pages: Record<string, Answer> = {
    "": {
      status: 200,
      body: {
        items: [{ metadata: { name: "a" } }, { metadata: { name: 5 } }, {}],
        metadata: { continue: "p2" },
      },
    },
    p2: { status: 200, body: { items: [{ metadata: { name: "b" } }], metadata: { continue: "" } } },
  };
  const { get, calls } = fakeGet({
    "/api/v1/namespaces": (query) => pages[String(query?.continue ?? "")] ?? { status: 410, body: {} },
  });
  const resolver = createApiserverKindResolver(get, logSink().logger);
  assert.equal(await resolver.namespaceExists("b"), true, "a name on the second page");
  assert.equal(await resolver.namespaceExists("a"), true, "a name on the first page");
  assert.deepEqual(
    calls.map((c) => c.query),
    [
      { limit: 500, continue: undefined },
      { limit: 500, continue: "p2" },
    ],
  );
  assert.equal(await resolver.namespaceExists("5"), false, "a name that is not a string is not kept");
});

test("a list without a continue token, or with one that is not a string, is one page", async () => {
  for (const metadata of [undefined, {}, { continue: 42 }]) {
    const { get, calls } = fakeGet({
      "/api/v1/namespaces": { status: 200, body: { items: [{ metadata: { name: "a" } }], metadata } },
    });
    const resolver = createApiserverKindResolver(get, logSink().logger);
    assert.equal(await resolver.namespaceExists("a"), true);
    assert.equal(calls.length, 1, JSON.stringify(metadata));
  }
});

for (const status of [401, 403]) {
  test(`a namespace list answered ${status} turns listing off, said once at info`, async () => {
    const { lines, logger } = logSink();
    const { get, calls } = fakeGet({ "/api/v1/namespaces": { status, body: {} } });
    const resolver = createApiserverKindResolver(get, logger);
    assert.equal(await resolver.namespaceExists("a"), false);
    assert.equal(await resolver.namespaceExists("b"), false);
    assert.equal(calls.length, 1, "never asked again");
    const said = lines.filter((l) => l.msg.startsWith("cannot list namespaces"));
    assert.equal(said.length, 1);
    assert.equal(said[0]?.level, "info");
    resolver.namespaceConfirmed("a");
    assert.equal(await resolver.namespaceExists("a"), true, "a successful write still confirms");
  });
}

test("a namespace list failing otherwise is logged at debug, not taken as a refusal", async () => {
  const { lines, logger } = logSink();
  const { get } = fakeGet({ "/api/v1/namespaces": { status: 500, body: {} } });
  const resolver = createApiserverKindResolver(get, logger);
  assert.equal(await resolver.namespaceExists("a"), false);
  const line = lines.find((l) => l.msg === "namespace list failed");
  assert.equal(line?.level, "debug");
  assert.equal(line?.error, "Error: list namespaces: HTTP 500");
  assert.equal(
    lines.some((l) => l.msg.startsWith("cannot list namespaces")),
    false,
    "a 500 is not a refusal",
  );
});

test("an /apis without groups still serves the core group; a namespace list without items lists none", async () => {
  const { get } = fakeGet({
    "/api": { status: 200, body: { versions: ["v1"] } },
    "/apis": { status: 200, body: {} },
    "/api/v1": { status: 200, body: { resources: [{ name: "pods", kind: "Pod" }] } },
    "/api/v1/namespaces": { status: 200, body: { metadata: {} } },
  });
  const resolver = createApiserverKindResolver(get, logSink().logger);
  assert.equal(await resolver.kindOf("", "v1", "pods"), "Pod");
  assert.equal(await resolver.namespaceExists("default"), false);
});

test("a discovery failure that is not an Error is logged as it is", async () => {
  const { lines, logger } = logSink();
  const get: ApiGet = async (path) => {
    if (path === "/apis/example.com/v1") throw "connection reset";
    return served[path] ?? { status: 404, body: {} };
  };
  const resolver = createApiserverKindResolver(get, logger);
  assert.equal(await resolver.kindOf("example.com", "v1", "widgets"), undefined);
  assert.equal(lines.find((l) => l.msg === "kind discovery failed")?.error, "connection reset");
});
