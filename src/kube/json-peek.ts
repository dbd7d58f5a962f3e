// Reads a few string fields out of JSON text without parsing the rest, for a
// shard that receives every object but keeps a third of them: a watch event
// of another shard's object is recognised from its uid and passed over
// before JSON.parse builds it (and leaves it to the garbage collector). The
// walk follows the structure (strings with their escapes, nested objects and
// arrays skipped whole), so a "uid" key anywhere else (an owner reference, a
// label) is never taken for the object's. Anything unexpected (not an object
// where one is needed, an escaped key or value, text cut short) gives
// undefined, and the caller parses the text as before.

const whitespace = new Set([" ", "\t", "\n", "\r"]);

function skipWhitespace(text: string, i: number): number {
  while (i < text.length && whitespace.has(text.charAt(i))) i++;
  return i;
}

/** The index after the string starting at `i` (a quote), or -1 when it does not end. */
function skipString(text: string, i: number): number {
  let end = text.indexOf('"', i + 1);
  while (end !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === 92) backslashes++;
    if (backslashes % 2 === 0) return end + 1;
    end = text.indexOf('"', end + 1);
  }
  return -1;
}

/** The index after the object or array starting at `i`, or -1. */
function skipContainer(text: string, i: number): number {
  let depth = 0;
  while (i < text.length) {
    const c = text.charAt(i);
    if (c === '"') {
      i = skipString(text, i);
      if (i === -1) return -1;
      continue;
    }
    if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  return -1;
}

/** The index after the value starting at `i`, or -1. */
function skipValue(text: string, i: number): number {
  const c = text.charAt(i);
  if (c === '"') return skipString(text, i);
  if (c === "{" || c === "[") return skipContainer(text, i);
  // A number, true, false or null: up to the next delimiter.
  while (i < text.length && !",}] \t\n\r".includes(text.charAt(i))) i++;
  return i;
}

/**
 * The string values of `keys` in the object at `path` (object keys from the
 * root), as far as found; undefined when the text does not have the shape.
 * E.g. peekStrings(line, ["object", "metadata"], ["resourceVersion", "uid"]).
 */
export function peekStrings(
  text: string,
  path: readonly string[],
  keys: readonly string[],
): Map<string, string> | undefined {
  let i = skipWhitespace(text, 0);
  for (const step of path) {
    const at = valueOf(text, i, step);
    if (at === undefined) return undefined;
    i = at;
  }
  return stringsOf(text, i, keys);
}

/** Where the value of `key` starts in the object at `i`; undefined when absent or not an object there. */
function valueOf(text: string, i: number, key: string): number | undefined {
  let found: number | undefined;
  const ok = eachMember(text, i, (name, value) => {
    if (name !== key) return true;
    found = value;
    return false;
  });
  return ok && found !== undefined && text.charAt(found) === "{" ? found : undefined;
}

function stringsOf(text: string, i: number, keys: readonly string[]): Map<string, string> | undefined {
  const out = new Map<string, string>();
  let unread = false;
  const ok = eachMember(text, i, (name, value) => {
    if (!keys.includes(name) || text.charAt(value) !== '"') return true;
    const end = skipString(text, value);
    const content = end === -1 ? "" : text.slice(value + 1, end - 1);
    // Cut short, or escaped (read by JSON.parse, not here).
    unread = end === -1 || content.includes("\\");
    if (unread) return false;
    out.set(name, content);
    return out.size < keys.length;
  });
  return ok && !unread ? out : undefined;
}

/** A key as JSON.parse reads it (most have no escape: taken as they are). */
function keyText(raw: string): string | undefined {
  if (!raw.includes("\\")) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return undefined;
  }
}

/**
 * Calls `member` with each key and the index of its value in the object at
 * `i`, until it returns false; false when the text is not such an object.
 */
function eachMember(text: string, i: number, member: (key: string, value: number) => boolean): boolean {
  if (text.charAt(i) !== "{") return false;
  i = skipWhitespace(text, i + 1);
  if (text.charAt(i) === "}") return true;
  while (i < text.length) {
    if (text.charAt(i) !== '"') return false;
    const keyEnd = skipString(text, i);
    if (keyEnd === -1) return false;
    const key = keyText(text.slice(i + 1, keyEnd - 1));
    if (key === undefined) return false;
    i = skipWhitespace(text, keyEnd);
    if (text.charAt(i) !== ":") return false;
    const value = skipWhitespace(text, i + 1);
    if (!member(key, value)) return true;
    const after = skipValue(text, value);
    if (after === -1) return false;
    i = skipWhitespace(text, after);
    if (text.charAt(i) === "}") return true;
    if (text.charAt(i) !== ",") return false;
    i = skipWhitespace(text, i + 1);
  }
  return false;
}
