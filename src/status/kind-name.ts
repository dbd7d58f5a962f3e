// Which kinds a name given by a person (a --kind flag, ?kind= on the page or
// the API) means: the forms kubectl accepts, case-insensitive, so `Widget`,
// `widgets` and `widgets.example.com` all name the same kind everywhere.

export interface KindNames {
  group: string;
  kind: string;
  /** The plural resource name, e.g. widgets. */
  resource: string;
}

/** Kind, plural, plural.group or Kind.group. */
export function namesKind(ref: KindNames, wanted: string): boolean {
  const w = wanted.toLowerCase();
  return [ref.kind, ref.resource, `${ref.resource}.${ref.group}`, `${ref.kind}.${ref.group}`].some(
    (name) => name.toLowerCase() === w,
  );
}
