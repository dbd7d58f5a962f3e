// What a subcommand may touch of the process: its output streams and the
// clock. Tests pass their own to capture output.

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Epoch seconds. */
  now(): number;
}

export const processIo: CliIo = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  now: () => Date.now() / 1000,
};
