// The CLI's io captured for assertions, with the fixed clock of the view fixtures.
import type { CliIo } from "../../src/cli/io.ts";
import { viewNow } from "./views.ts";

/**
 * `pauses`: how many pauses return true before the next one says
 * "interrupted" (a Ctrl-C); `interactive`: stdout is a terminal.
 */
export function captureIo(
  pauses = 0,
  interactive = false,
): CliIo & { out: string; err: string; paused: number[] } {
  const io = {
    interactive,
    out: "",
    err: "",
    paused: [] as number[],
    stdout: (text: string) => {
      io.out += text;
    },
    stderr: (text: string) => {
      io.err += text;
    },
    now: () => viewNow,
    pause: (ms: number) => {
      io.paused.push(ms);
      return Promise.resolve(io.paused.length <= pauses);
    },
  };
  return io;
}
