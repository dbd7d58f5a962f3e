// Listening sockets, the same way for every server of the exporter (/metrics,
// the API proxy, the audit receiver) and the servers tests start: parsing
// `host:port`, binding, and closing with the connections still open.
import type { AddressInfo, Server } from "node:net";

export interface HostPort {
  /** "" listens on every interface. */
  host: string;
  port: number;
}

/** Parses `host:port` or `[ipv6]:port`; `field` names the option in the error. */
export function parseHostPort(value: string, field: string): HostPort {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(value.trim());
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (!match || host === undefined || !Number.isInteger(port) || port > 65535) {
    throw new Error(`${field}: expected host:port (e.g. 127.0.0.1:8001), got ${JSON.stringify(value)}`);
  }
  return { host, port };
}

/** Starts `server` listening; resolves with the bound host (IPv6 in brackets, ready for a URL) and port. */
export async function listenOn(server: Server, address: HostPort): Promise<HostPort> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(address.port, address.host || undefined, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  return { host: bound.family === "IPv6" ? `[${bound.address}]` : bound.address, port: bound.port };
}

/** Stops accepting, ends every open connection (keep-alive and streaming ones too) and resolves once closed. */
export function closeServer(server: Server & { closeAllConnections?: () => void }): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections?.();
  });
}
