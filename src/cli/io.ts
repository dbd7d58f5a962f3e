// What a subcommand may touch of the process: its output streams, the clock
// and the user's interrupt. Tests pass their own to capture output.
import { setTimeout as sleep } from "node:timers/promises";

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Epoch seconds. */
  now(): number;
  /** Whether stdout is a terminal (a live table redraws in place there). */
  readonly interactive?: boolean;
  /** Waits `ms`; false when interrupted (Ctrl-C) instead. */
  pause(ms: number): Promise<boolean>;
}

function interruptSignal(): AbortSignal {
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return controller.signal;
}

let interrupted: AbortSignal | undefined;

export const processIo: CliIo = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  now: () => Date.now() / 1000,
  interactive: process.stdout.isTTY === true,
  async pause(ms) {
    // Listening for Ctrl-C only from the first pause on: a plain run keeps the default handling.
    interrupted ??= interruptSignal();
    try {
      await sleep(ms, undefined, { signal: interrupted });
      return true;
    } catch {
      return false;
    }
  },
};
