// A small HTTPS stand-in for the apiserver behind the API proxy: it serves the
// discovery documents and the namespace list the exporter confirms labels
// with (example.com/v1 widgets → Widget, namespace ns1), answers a write to an
// object named "conflict" 409, every other request 200 with `{}`, and records
// what it was asked.
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { makeTestCertificates } from "../helpers/tls-certs.ts";

export interface DiscoveryApiserver {
  url: string;
  caPem: string;
  /** "METHOD path" of every request, in order. */
  requests: string[];
  close(): Promise<void>;
}

const documents: Record<string, unknown> = {
  "/api": { versions: ["v1"] },
  "/apis": { groups: [{ versions: [{ groupVersion: "example.com/v1" }] }] },
  "/apis/example.com/v1": { resources: [{ name: "widgets", kind: "Widget" }] },
  "/api/v1/namespaces": { items: [{ metadata: { name: "ns1" } }], metadata: {} },
};

export async function startDiscoveryApiserver(): Promise<DiscoveryApiserver> {
  const certs = makeTestCertificates();
  const requests: string[] = [];
  const server: Server = createServer({ cert: certs.serverCertPem, key: certs.serverKeyPem }, (req, res) => {
    requests.push(`${req.method} ${req.url}`);
    req.resume();
    const path = (req.url ?? "").split("?")[0] ?? "";
    if (req.method !== "GET" && path.includes("/conflict/")) {
      res.writeHead(409, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ kind: "Status", status: "Failure", reason: "Conflict", code: 409 }));
      return;
    }
    const body = req.method === "GET" ? (documents[path] ?? {}) : {};
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caPem: certs.caPem,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
