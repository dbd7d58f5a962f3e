// Prometheus text exposition primitives shared by the per-object renderer and
// the /metrics writer. Label values are escaped exactly as the text format
// requires (backslash, double quote, line feed); names are sanitized.
//
// Pre-rendered text is kept as "byte strings": every character is one byte of
// the UTF-8 output (non-ASCII text is encoded once, at render time), so the
// writer copies it into buffers with a latin-1 write and never converts the
// body string → UTF-8 per scrape.

const needsEscape = /[\\"\n]/;
const nonAscii = /[\u0080-\uffff]/;

/** UTF-8 bytes of `text` as a one-byte-per-character string (ASCII text is returned as is). */
export function byteString(text: string): string {
  return nonAscii.test(text) ? Buffer.from(text, "utf8").toString("latin1") : text;
}

/** The inverse of byteString, for tests and for reading rendered text back. */
export function fromByteString(bytes: string): string {
  return nonAscii.test(bytes) ? Buffer.from(bytes, "latin1").toString("utf8") : bytes;
}

/** An escaped label value as a byte string, ready to be written between quotes. */
export function encodeLabelValue(value: string): string {
  return byteString(escapeLabelValue(value));
}

export function escapeLabelValue(value: string): string {
  if (!needsEscape.test(value)) return value;
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/** Escapes HELP text (backslash and line feed only). */
export function escapeHelp(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

const invalidLabelChars = /[^a-zA-Z0-9_]/g;

/** Turns any string (an object label key, say) into a valid Prometheus label name. */
export function sanitizeLabelName(name: string): string {
  let sanitized = name.replace(invalidLabelChars, "_");
  if (/^[0-9]/.test(sanitized)) sanitized = `_${sanitized}`;
  // Names starting with __ are reserved for Prometheus' own use.
  sanitized = sanitized.replace(/^__+/, "_");
  return sanitized || "_";
}

/** Renders `{a="x",b="y"}` from parallel key/value lists (already sanitized names), as a byte string. */
export function renderLabels(names: readonly string[], values: readonly string[]): string {
  return names.length === 0 ? "" : `${openLabels(names, values)}}`;
}

/** A label set without its closing brace, for lines whose own labels follow (`{a="1",b="2"`). */
export function openLabels(names: readonly string[], values: readonly string[]): string {
  let out = "{";
  for (let i = 0; i < names.length; i++) {
    if (i > 0) out += ",";
    out += `${names[i]}="${encodeLabelValue(values[i] ?? "")}"`;
  }
  return out;
}

/** Formats a sample value the way Prometheus parses it (NaN and infinities spelled out). */
export function formatValue(value: number): string {
  // String(NaN) is "NaN" already; the infinities are spelled differently.
  if (value === Number.POSITIVE_INFINITY) return "+Inf";
  if (value === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(value);
}

/** A sample value as formatValue writes it. */
export function parseValue(text: string): number {
  if (text === "+Inf") return Number.POSITIVE_INFINITY;
  if (text === "-Inf") return Number.NEGATIVE_INFINITY;
  return Number(text);
}
