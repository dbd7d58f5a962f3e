// Prometheus text exposition primitives shared by the per-object renderer and
// the /metrics writer. Label values are escaped exactly as the text format
// requires (backslash, double quote, line feed); names are sanitized.

const needsEscape = /[\\"\n]/;

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
  if (sanitized.startsWith("__")) sanitized = sanitized.replace(/^_+/, "_");
  return sanitized || "_";
}

/** Renders `{a="x",b="y"}` from parallel key/value lists (already sanitized names). */
export function renderLabels(names: readonly string[], values: readonly string[]): string {
  if (names.length === 0) return "";
  let out = "{";
  for (let i = 0; i < names.length; i++) {
    if (i > 0) out += ",";
    out += `${names[i]}="${escapeLabelValue(values[i] ?? "")}"`;
  }
  return `${out}}`;
}

/** Formats a sample value the way Prometheus parses it (NaN and infinities spelled out). */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Number.POSITIVE_INFINITY) return "+Inf";
  if (value === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(value);
}

/** One sample line: `name{labels} value\n`. `labels` is a rendered `{...}` or "". */
export function sampleLine(name: string, labels: string, value: number): string {
  return `${name}${labels} ${formatValue(value)}\n`;
}
