// Every string an object controls that becomes a label value (phase,
// condition type and reason, extra labels from annotations) is cut to a
// fixed length. Prometheus keeps every label byte of every series in its
// index, and a 1 MB phase would otherwise be exported as is. A cut value ends
// with the marker, and the projection counts it (cr_exporter_label_values_truncated_total).
//
// A slice of a long string keeps the whole original alive in V8 (a sliced
// string points into its parent), so a cut value is copied into a string of
// its own: a 1 MB message cut to 256 characters must not cost 1 MB per object.

/** Longest label value exported, in UTF-16 code units (Kubernetes names are at most 253; reasons are short words). */
export const maxLabelValueLength = 128;

/** Ends a value that was cut. */
export const truncationMarker = "…";

/** A copy of `text` that shares no memory with a longer string it was sliced from. */
function detached(text: string): string {
  return Buffer.from(text, "utf16le").toString("utf16le");
}

/** `text` cut to `max` characters (the last one the marker), never splitting a surrogate pair; copied. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - truncationMarker.length);
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return detached(text.slice(0, end) + truncationMarker);
}

/** A label value within maxLabelValueLength. */
export function capLabelValue(value: string): string {
  return cutText(value, maxLabelValueLength);
}
