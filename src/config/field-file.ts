// Reading a file that a configuration field names (a certificate, a key, a
// token). A failure is a configuration error that names the field, the path
// and what went wrong in words, never a bare ENOENT.
import { readFileSync } from "node:fs";
import { ConfigError } from "./validate.ts";

const reasons: Record<string, string> = {
  ENOENT: "no such file",
  EACCES: "permission denied",
  EISDIR: "it is a directory",
  ENOTDIR: "a parent of it is not a directory",
  ELOOP: "too many symbolic links",
};

/** The file's text, trimmed (PEM and token files end with a newline); undefined when the field is unset. */
export function readFieldFile(field: string, path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  try {
    return readFileSync(path, "utf8").trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    const reason = reasons[code] ?? (error as Error).message;
    throw new ConfigError([
      `${field}: cannot read ${JSON.stringify(path)}: ${reason}${code ? ` (${code})` : ""}`,
    ]);
  }
}
