// Structured JSON logs on stderr, one line per notable event.
export type LogLevel = "debug" | "info" | "warn" | "error";

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger whose lines all carry `fields`. */
  child(fields: LogFields): Logger;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Where lines go; stderr by default. Tests pass an array sink. */
  write?: (line: string) => void;
  now?: () => Date;
}

export function isLogLevel(value: string): value is LogLevel {
  return value in order;
}

export function createLogger(options: LoggerOptions = {}, base: LogFields = {}): Logger {
  const threshold = order[options.level ?? "info"];
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const now = options.now ?? (() => new Date());
  const emit = (level: LogLevel, msg: string, fields?: LogFields): void => {
    if (order[level] < threshold) return;
    const record: LogFields = { time: now().toISOString(), level, msg, ...base, ...fields };
    for (const [key, value] of Object.entries(record)) {
      if (value instanceof Error) record[key] = value.message;
    }
    write(JSON.stringify(record));
  };
  return {
    debug: (msg, fields) => emit("debug", msg, fields),
    info: (msg, fields) => emit("info", msg, fields),
    warn: (msg, fields) => emit("warn", msg, fields),
    error: (msg, fields) => emit("error", msg, fields),
    child: (fields) => createLogger(options, { ...base, ...fields }),
  };
}

/** A logger that drops everything, for unit tests that do not look at logs. */
export const silentLogger: Logger = createLogger({ write: () => {} });
