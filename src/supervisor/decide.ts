// Whether this command line runs under the supervisor: it runs the exporter
// (no subcommand, --help, --version or --check-config) and the configuration
// (file and flags) sets apiProxy. Anything unreadable or invalid answers no,
// so the single process reports it exactly as before.
import { runsSubcommand } from "../cli/index.ts";
import { flagOverrides, parseFlags } from "../config/flags.ts";
import { loadConfigFile } from "../config/load.ts";
import type { LogLevel } from "../log.ts";

/** The log level to supervise with, or undefined when the exporter runs as a single process. */
export function supervisedLogLevel(argv: readonly string[]): LogLevel | undefined {
  if (runsSubcommand(argv)) return undefined;
  try {
    const flags = parseFlags([...argv]);
    if (flags.help || flags.version || flags.checkConfig !== undefined) return undefined;
    const { config } = loadConfigFile(flags.config, flagOverrides(flags));
    return config.apiProxy ? config.logLevel : undefined;
  } catch {
    // Unreadable or invalid: the single process reports it.
  }
  return undefined;
}
