// The loopback rule for listen addresses: the API proxy forwards the bearer
// tokens of whoever connects, so by default only processes in the same network
// namespace (the pod) may reach it.
import { isIP } from "node:net";
import type { HostPort } from "../net/listen.ts";

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
  address: HostPort,
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
