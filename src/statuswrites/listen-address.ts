import type { AddressInfo, Server } from "node:net";
// Listen addresses ("127.0.0.1:8001", "[::1]:8001") and the loopback rule:
// the API proxy forwards the bearer tokens of whoever connects, so by default
// only processes in the same network namespace (the pod) may reach it.
import { isIP } from "node:net";

export interface ListenAddress {
  host: string;
  port: number;
}

/** Parses `host:port`; `field` names the option in the error. */
export function parseListenAddress(value: string, field: string): ListenAddress {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(value.trim());
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (!match || host === undefined || !Number.isInteger(port) || port > 65535) {
    throw new Error(`${field}: expected host:port (e.g. 127.0.0.1:8001), got ${JSON.stringify(value)}`);
  }
  return { host, port };
}

/** True for 127.0.0.0/8, ::1, ::ffff:127.x and "localhost". */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (bare === "localhost") return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  if (isIP(bare) === 6) return bare === "::1" || /^::ffff:127\./.test(bare);
  return false;
}

/**
 * Throws unless the address is loopback or the caller explicitly allowed
 * other addresses. An empty host (all interfaces) is not loopback.
 */
export function assertLoopbackUnlessAllowed(
  address: ListenAddress,
  allowNonLoopback: boolean,
  field: string,
): void {
  if (allowNonLoopback || isLoopbackHost(address.host)) return;
  throw new Error(
    `${field}: refusing to listen on non-loopback address ${JSON.stringify(address.host)}: ` +
      "the proxy forwards the credentials of any caller that can reach it; " +
      "use 127.0.0.1 or set allowNonLoopback explicitly",
  );
}

/** Starts `server` listening on `address`; resolves with the bound host (IPv6 in brackets) and port. */
export async function bindServer(
  server: Server,
  address: ListenAddress,
): Promise<{ host: string; port: number }> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(address.port, address.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  return { host: bound.family === "IPv6" ? `[${bound.address}]` : bound.address, port: bound.port };
}
