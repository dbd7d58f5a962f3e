// How the supervisor tells a child what it is: environment variables set on
// the children it starts, never by users. main.ts reads the role first.
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const roleVariable = "CR_STATUS_EXPORTER_PROCESS";
/** Where the API proxy process serves its status-write counters (a Unix socket). */
export const countersVariable = "CR_STATUS_EXPORTER_API_PROXY_COUNTERS";
/** The supervisor's log level (from the configuration it decided with). */
export const logLevelVariable = "CR_STATUS_EXPORTER_SUPERVISOR_LOG_LEVEL";
/** How often the supervisor restarted this child before (0 for the first run). */
export const restartsVariable = "CR_STATUS_EXPORTER_RESTARTS";

/** The supervisor itself (main.ts re-executes itself with it: a fresh process that loads nothing else), or one of its children. */
export type Role = "supervisor" | "api-proxy" | "exporter";

export function roleOf(env: NodeJS.ProcessEnv): Role | undefined {
  const role = env[roleVariable];
  return role === "supervisor" || role === "api-proxy" || role === "exporter" ? role : undefined;
}

/** The role of a child of the supervisor; undefined for the supervisor itself or a single process. */
export function childRole(env: NodeJS.ProcessEnv): "api-proxy" | "exporter" | undefined {
  const role = roleOf(env);
  return role === "supervisor" ? undefined : role;
}

/** The restart count the supervisor gave this child (0 outside a supervisor). */
export function restartsOf(env: NodeJS.ProcessEnv): number {
  // Unset reads as NaN, and anything but a whole number as 0 restarts.
  const restarts = Number(env[restartsVariable]);
  return Number.isSafeInteger(restarts) ? Math.max(0, restarts) : 0;
}

/**
 * A child started by the supervisor ends when the supervisor is gone: the IPC
 * channel it was started with closes then. The channel carries no messages and
 * does not keep the process alive.
 */
export function exitWithSupervisor(
  stop: () => void,
  child: Pick<NodeJS.Process, "channel" | "once"> = process,
): void {
  const channel = child.channel;
  if (!channel) return;
  channel.unref();
  child.once("disconnect", stop);
}

/**
 * Where the supervisor's API proxy serves its counters: unique per supervisor.
 * An abstract socket is written with a leading "@" (an environment variable
 * cannot hold the NUL byte its address starts with).
 */
export function countersSocketPath(platform: NodeJS.Platform = process.platform): string {
  const name = `cr-status-exporter-${process.pid}-${randomBytes(8).toString("hex")}`;
  return platform === "linux" ? `@${name}/api-proxy-counters` : join(tmpdir(), `${name}.sock`);
}
