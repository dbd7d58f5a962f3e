// Reads a few string fields out of JSON text without parsing the rest, for a
// shard that receives every object but keeps a third of them: a watch event
// of another shard's object is recognised from its uid and passed over
// before JSON.parse builds it (and leaves it to the garbage collector). The
// walk follows the structure (strings with their escapes, nested objects and
// arrays skipped whole), so a "uid" key anywhere else (an owner reference, a
// label) is never taken for the object's. Anything unexpected (not an object
// where one is needed, an escaped value, text cut short) gives undefined, and
// the caller parses the text as before. It allocates only the values it
// returns: no match objects, closures or key strings per member, so passing
// over an event leaves next to nothing for the young generation.

const quote = 34;
const backslash = 92;
const colon = 58;
const comma = 44;
const openBrace = 123;
const closeBrace = 125;
const openBracket = 91;
const closeBracket = 93;

/** Space, tab, line feed, carriage return. */
const isWhitespace = (code: number): boolean => code === 32 || code === 9 || code === 10 || code === 13;

function skipWhitespace(text: string, i: number): number {
  while (i < text.length && isWhitespace(text.charCodeAt(i))) i++;
  return i;
}

/** The index after the string starting at `i` (a quote), or -1 when it does not end. */
function skipString(text: string, i: number): number {
  let end = text.indexOf('"', i + 1);
  while (end !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === backslash) backslashes++;
    if (backslashes % 2 === 0) return end + 1;
    end = text.indexOf('"', end + 1);
  }
  return -1;
}

/** The index after the object or array starting at `i`, or -1. */
function skipContainer(text: string, i: number): number {
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const code = text.charCodeAt(j);
    if (code === quote) {
      // A string: jumped over whole (its brackets are text).
      const end = skipString(text, j);
      if (end === -1) return -1;
      j = end - 1;
    } else if (code === openBrace || code === openBracket) depth++;
    else if ((code === closeBrace || code === closeBracket) && --depth === 0) return j + 1;
  }
  return -1;
}

/** The index after the value starting at `i`, or -1. */
function skipValue(text: string, i: number): number {
  const code = text.charCodeAt(i);
  if (code === quote) return skipString(text, i);
  if (code === openBrace || code === openBracket) return skipContainer(text, i);
  // A number, true, false or null: up to the next delimiter.
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === comma || c === closeBrace || c === closeBracket || isWhitespace(c)) break;
    i++;
  }
  return i;
}

/** Which of `keys` the key string at [start, end) (quotes excluded) is; -1 none, -2 an escape it cannot compare. */
function keyIndex(text: string, start: number, end: number, keys: readonly string[]): number {
  const escaped = text.indexOf("\\", start);
  if (escaped !== -1 && escaped < end) {
    // Rare (never in what the apiserver writes): decoded to compare, so "\u0075id" is still uid.
    try {
      return keys.indexOf(JSON.parse(text.slice(start - 1, end + 1)) as string);
    } catch {
      return -2;
    }
  }
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k] as string;
    if (key.length === end - start && text.startsWith(key, start)) return k;
  }
  return -1;
}

/**
 * Where the values of `keys` start in the object at `i` (-1 for a key not
 * there); undefined when the text at `i` is not such an object. Stops at the
 * last key found once every key is found.
 */
function memberValues(text: string, i: number, keys: readonly string[]): number[] | undefined {
  const found = keys.map(() => -1);
  let missing = keys.length;
  if (text.charCodeAt(i) !== openBrace) return undefined;
  i = skipWhitespace(text, i + 1);
  if (text.charCodeAt(i) === closeBrace) return found;
  while (i < text.length) {
    if (text.charCodeAt(i) !== quote) return undefined;
    const keyEnd = skipString(text, i);
    if (keyEnd === -1) return undefined;
    const k = keyIndex(text, i + 1, keyEnd - 1, keys);
    if (k === -2) return undefined;
    i = skipWhitespace(text, keyEnd);
    if (text.charCodeAt(i) !== colon) return undefined;
    const value = skipWhitespace(text, i + 1);
    // Cut after the colon: the value is not absent but unknown.
    if (value === text.length) return undefined;
    if (k >= 0 && found[k] === -1) {
      found[k] = value;
      if (--missing === 0) return found;
    }
    const after = skipValue(text, value);
    if (after === -1) return undefined;
    i = skipWhitespace(text, after);
    if (text.charCodeAt(i) === closeBrace) return found;
    if (text.charCodeAt(i) !== comma) return undefined;
    i = skipWhitespace(text, i + 1);
  }
  return undefined;
}

/**
 * The string values of `keys` in the object at `path` (object keys from the
 * root), as far as found; undefined when the text does not have the shape or
 * a value is escaped. E.g. peekStrings(line, ["object", "metadata"], ["resourceVersion", "uid"]).
 */
export function peekStrings(
  text: string,
  path: readonly string[],
  keys: readonly string[],
  start = 0,
): Map<string, string> | undefined {
  let i = skipWhitespace(text, start);
  for (const step of path) {
    const at = memberValues(text, i, [step])?.[0];
    if (at === undefined) return undefined;
    // Not there (-1, where charCodeAt reads NaN) or not an object: the next memberValues gives undefined.
    i = at;
  }
  const values = memberValues(text, i, keys);
  if (!values) return undefined;
  const out = new Map<string, string>();
  for (let k = 0; k < keys.length; k++) {
    const at = values[k] as number;
    // Not there (-1: charCodeAt reads NaN) or not a string.
    if (text.charCodeAt(at) !== quote) continue;
    const end = skipString(text, at);
    if (end === -1) return undefined;
    const value = text.slice(at + 1, end - 1);
    // An escaped value is read by JSON.parse, not here.
    if (value.includes("\\")) return undefined;
    out.set(keys[k] as string, value);
  }
  return out;
}

/** A list page with only the items kept parsed: the others were passed over by their uid. */
export interface PeekedListPage {
  items: unknown[];
  metadata: unknown;
  /** Items passed over unparsed (another shard's). */
  skipped: number;
}

/**
 * A list page (`{"kind", "apiVersion", "metadata", "items": [...]}`) with
 * only the items whose metadata.uid `keep` accepts parsed; undefined when the
 * text does not read that way (or an item's uid cannot be read), and the
 * caller parses it whole.
 */
export function peekListPage(text: string, keep: (uid: string) => boolean): PeekedListPage | undefined {
  const root = skipWhitespace(text, 0);
  const at = memberValues(text, root, ["items", "metadata"]);
  if (!at) return undefined;
  const [itemsAt, metadataAt] = at as [number, number];
  let metadata: unknown;
  if (metadataAt !== -1) {
    metadata = sliceParsed(text, metadataAt);
    // Metadata that does not read: the page is parsed whole (and fails there if it must).
    if (metadata === undefined) return undefined;
  }
  const page: PeekedListPage = { items: [], metadata, skipped: 0 };
  if (itemsAt === -1 || text.startsWith("null", itemsAt)) return page;
  if (text.charCodeAt(itemsAt) !== openBracket) return undefined;
  let i = skipWhitespace(text, itemsAt + 1);
  if (text.charCodeAt(i) === closeBracket) return page;
  while (i < text.length) {
    const end = skipValue(text, i);
    if (end === -1) return undefined;
    const uid = peekStrings(text, ["metadata"], ["uid"], i)?.get("uid");
    if (uid === undefined) return undefined;
    if (keep(uid)) page.items.push(JSON.parse(text.slice(i, end)));
    else page.skipped++;
    i = skipWhitespace(text, end);
    if (text.charCodeAt(i) === closeBracket) return page;
    if (text.charCodeAt(i) !== comma) return undefined;
    i = skipWhitespace(text, i + 1);
  }
  return undefined;
}

/** The JSON value starting at `i`, parsed; undefined when it does not end. */
function sliceParsed(text: string, i: number): unknown {
  const end = skipValue(text, i);
  if (end === -1) return undefined;
  try {
    return JSON.parse(text.slice(i, end));
  } catch {
    return undefined;
  }
}
