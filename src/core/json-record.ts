// Objects from the API server are untyped JSON: a field is read as an object
// only when it is one. null, lists and scalars count as absent, so a malformed
// value (`subresources: {status: true}`) is never taken for a declared one.
export type JsonRecord = Record<string, unknown>;

export function asRecord(value: unknown): JsonRecord | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as JsonRecord)
    : undefined;
}
