// Subcommands of the cr-status-exporter binary. cli/exporter.ts asks here first; an
// argument list that names no subcommand runs the exporter as before. A
// subcommand's code is loaded only when it is named, so the exporter itself
// does not hold it.
import { ConfigError } from "../config/validate.ts";
import { type CliIo, processIo } from "./io.ts";

interface Command {
  run: (argv: string[], io: CliIo) => Promise<number>;
  usage: string;
}

const commands: Record<string, () => Promise<Command>> = {
  status: async () => {
    const { runStatus, statusUsage } = await import("./status.ts");
    return { run: runStatus, usage: statusUsage };
  },
  explain: async () => {
    const { explainUsage, runExplain } = await import("./explain.ts");
    return { run: runExplain, usage: explainUsage };
  },
};

/** True when argv[0] names a subcommand. */
export function runsSubcommand(argv: readonly string[]): boolean {
  const [name] = argv;
  return name !== undefined && Object.hasOwn(commands, name);
}

/** The exit code of the subcommand named by argv[0], or undefined when argv names none. */
export async function runSubcommand(
  argv: readonly string[],
  io: CliIo = processIo,
): Promise<number | undefined> {
  const [name, ...rest] = argv;
  const load = name !== undefined && Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!load) return undefined;
  const command = await load();
  const { UsageError } = await import("./status.ts");
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
