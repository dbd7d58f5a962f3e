// Header handling for the proxy: end-to-end headers pass through unchanged
// (duplicates included), hop-by-hop headers stop at the proxy (RFC 9110 §7.6.1).
import type { OutgoingHttpHeaders } from "node:http";

const hopByHop = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
]);

/** The end-to-end headers of a message, from Node's rawHeaders [name, value, name, value, …]. */
export function endToEndHeaders(rawHeaders: readonly string[]): OutgoingHttpHeaders {
  const dropped = new Set(hopByHop);
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.toLowerCase() === "connection") {
      for (const token of (rawHeaders[i + 1] ?? "").split(",")) dropped.add(token.trim().toLowerCase());
    }
  }
  const grouped = new Map<string, { name: string; values: string[] }>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] ?? "";
    const value = rawHeaders[i + 1] ?? "";
    const key = name.toLowerCase();
    if (dropped.has(key)) continue;
    const entry = grouped.get(key);
    if (entry) entry.values.push(value);
    else grouped.set(key, { name, values: [value] });
  }
  const headers: OutgoingHttpHeaders = {};
  for (const { name, values } of grouped.values()) headers[name] = values.length === 1 ? values[0] : values;
  return headers;
}

export function headerValue(rawHeaders: readonly string[], name: string): string | undefined {
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.toLowerCase() === name) return rawHeaders[i + 1];
  }
  return undefined;
}
