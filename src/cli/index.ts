// Subcommands of the cr-status-exporter binary. main.ts asks here first; an
// argument list that names no subcommand runs the exporter as before.
import { ConfigError } from "../config/validate.ts";
import { explainUsage, runExplain } from "./explain.ts";
import { type CliIo, processIo } from "./io.ts";
import { runStatus, statusUsage, UsageError } from "./status.ts";

const commands: Record<string, { run: (argv: string[], io: CliIo) => Promise<number>; usage: string }> = {
  status: { run: runStatus, usage: statusUsage },
  explain: { run: runExplain, usage: explainUsage },
};

/** The exit code of the subcommand named by argv[0], or undefined when argv names none. */
export async function runSubcommand(
  argv: readonly string[],
  io: CliIo = processIo,
): Promise<number | undefined> {
  const [name, ...rest] = argv;
  const command = name === undefined ? undefined : commands[name];
  if (!command) return undefined;
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`cr-status-exporter ${name}: ${error.message}\n\n${command.usage}`);
      return 2;
    }
    if (error instanceof ConfigError) {
      io.stderr(`${error.message}\n`);
      return 2;
    }
    io.stderr(`cr-status-exporter ${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
}
