// What a configuration file must be before its fields are read: text, and a
// YAML mapping at the top level. Anything else (an empty file, a list, a plain
// string, binary bytes) is rejected with what was found, whether or not flags
// are also given: flags are laid over the file's mapping, never over nothing.

function describe(value: unknown): string {
  if (Array.isArray(value)) return `a list of ${value.length} item${value.length === 1 ? "" : "s"}`;
  if (typeof value === "string") {
    const shown = JSON.stringify(value.length > 40 ? `${value.slice(0, 37)}...` : value);
    return `a plain string ${shown}`;
  }
  return `${typeof value === "number" ? "a number" : `a ${typeof value}`} ${String(value)}`;
}

/** Undefined for text, else why the file is not a text file (checked before YAML sees it). */
export function binaryProblem(text: string): string | undefined {
  // Never in a text configuration file: NUL, and U+FFFD, which decoding puts
  // where the bytes were not UTF-8.
  const nul = text.indexOf("\u0000");
  if (nul >= 0) return `not a text file: it holds a NUL byte (at character ${nul})`;
  const replaced = text.indexOf("\uFFFD");
  if (replaced >= 0) return `not a text file: it holds bytes that are not UTF-8 (at character ${replaced})`;
  return undefined;
}

/** Undefined when the parsed file can be validated field by field, else what is wrong with it as a whole. */
export function topLevelProblem(parsed: unknown): string | undefined {
  if (parsed === undefined || parsed === null) {
    return "the file holds no settings (it is empty, only comments, or null); write {} to use the defaults";
  }
  if (typeof parsed === "object" && !Array.isArray(parsed)) return undefined;
  return `expected a mapping of settings at the top level (see config.example.yaml), got ${describe(parsed)}`;
}
