// One GET against a running exporter for `status --server`: plain HTTP, or
// HTTPS with the CA, server name and bearer token the exporter's TLS and
// Kubernetes authorization (web config, `metricsAuth: kubernetes`) ask for.
// node:https rather than fetch, because fetch takes no per-request CA.
import { readFileSync } from "node:fs";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { readText } from "../net/http-body.ts";

/** How to reach the server; the files are read once, before the first request. */
export interface ServerAccess {
  tokenFile: string | undefined;
  caFile: string | undefined;
  tlsServerName: string | undefined;
  insecureSkipTlsVerify: boolean;
}

export interface ServerCredentials {
  token: string | undefined;
  ca: string | undefined;
  servername: string | undefined;
  rejectUnauthorized: boolean;
}

export interface ServerReply {
  status: number;
  body: string;
}

// A page of 500 items is about 0.5 MB; far beyond that is not our API.
const maxReplyBytes = 64 * 1024 * 1024;

function readFlagFile(flag: string, path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new Error(`${flag} ${path}: cannot read it (${(error as NodeJS.ErrnoException).code ?? error})`);
  }
}

export function loadCredentials(access: ServerAccess): ServerCredentials {
  // Token files (a projected service-account token, `kubectl create token > f`) end with a newline.
  const token =
    access.tokenFile === undefined ? undefined : readFlagFile("--token-file", access.tokenFile).trim();
  if (token === "") throw new Error(`--token-file ${access.tokenFile}: the file is empty`);
  return {
    token,
    ca: access.caFile === undefined ? undefined : readFlagFile("--ca-file", access.caFile),
    servername: access.tlsServerName,
    rejectUnauthorized: !access.insecureSkipTlsVerify,
  };
}

export function getText(
  url: string,
  credentials: ServerCredentials,
  timeoutMs: number,
): Promise<ServerReply> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (credentials.token !== undefined) headers.Authorization = `Bearer ${credentials.token}`;
  return new Promise((resolve, reject) => {
    const done = (response: IncomingMessage) =>
      readText(response, maxReplyBytes).then(
        (body) => resolve({ status: response.statusCode ?? 0, body }),
        reject,
      );
    const request = url.startsWith("https:")
      ? httpsRequest(
          url,
          {
            headers,
            ca: credentials.ca,
            // The certificate is checked against servername when given (SNI too), else the URL's host.
            servername: credentials.servername,
            rejectUnauthorized: credentials.rejectUnauthorized,
          },
          done,
        )
      : httpRequest(url, { headers }, done);
    request.setTimeout(timeoutMs, () => request.destroy(new Error(`no answer in ${timeoutMs / 1000} s`)));
    request.once("error", reject);
    request.end();
  });
}
