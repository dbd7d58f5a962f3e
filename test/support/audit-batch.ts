// Audit batches as the apiserver's webhook backend posts them (an EventList of
// audit.k8s.io/v1 events), for tests and benchmarks that load the exporter's
// audit receiver.
import { type Agent, request } from "node:https";

/** An EventList of about `bytes` bytes: status PATCHes of widget w1 in `namespace`, 600 bytes of annotation each. */
export function bigAuditBatch(bytes: number, namespace: string): { body: Buffer; events: number } {
  const event = JSON.stringify({
    level: "Metadata",
    stage: "ResponseComplete",
    verb: "patch",
    user: { username: "batch-writer" },
    objectRef: {
      resource: "widgets",
      namespace,
      name: "w1",
      apiGroup: "example.com",
      apiVersion: "v1",
      subresource: "status",
    },
    responseStatus: { code: 200 },
    annotations: { note: "x".repeat(600) },
  });
  const count = Math.floor(bytes / (event.length + 1));
  const items = Array(count).fill(event).join(",");
  return {
    body: Buffer.from(`{"kind":"EventList","apiVersion":"audit.k8s.io/v1","items":[${items}]}`),
    events: count,
  };
}

/** One POST of `body` to the receiver at `url`; its status and Retry-After. */
export function postAuditBatch(
  url: string,
  token: string,
  agent: Agent,
  body: Buffer,
): Promise<{ status: number; retryAfter: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        headers: {
          Authorization: `Bearer ${token}`,
          "Content-Type": "application/json",
          "Content-Length": body.length,
        },
        agent,
      },
      (res) => {
        res.resume();
        res.on("end", () => {
          const retry = res.headers["retry-after"];
          resolve({ status: res.statusCode ?? 0, retryAfter: Array.isArray(retry) ? retry[0] : retry });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
