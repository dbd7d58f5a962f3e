// Objects from the API server are untyped JSON: a field is read as an object
// only when it is one. null, lists and scalars count as absent, so a malformed
// value (`subresources: {status: true}`) is never taken for a declared one.
export type JsonRecord = Record<string, unknown>;

/** Plain objects only: not arrays, null or scalars. */
export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function asRecord(value: unknown): JsonRecord | undefined {
  return isRecord(value) ? value : undefined;
}
