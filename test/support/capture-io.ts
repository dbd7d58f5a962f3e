// The CLI's io captured for assertions, with the fixed clock of the view fixtures.
import type { CliIo } from "../../src/cli/io.ts";
import { viewNow } from "./views.ts";

export function captureIo(): CliIo & { out: string; err: string } {
  const io = {
    out: "",
    err: "",
    stdout: (text: string) => {
      io.out += text;
    },
    stderr: (text: string) => {
      io.err += text;
    },
    now: () => viewNow,
  };
  return io;
}
