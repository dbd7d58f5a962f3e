// The group, kind and namespace labels of a status write, from what the
// apiserver confirmed, never from the request alone: any cluster user can send
// a forbidden write naming a made-up group or namespace, and each new name
// would otherwise be a new series. What is not confirmed is folded into
// "other" and said so (StatusWriteObservation.folded).
import type { KindResolver } from "./kinds.ts";

/** The value a label takes when its real value is not kept. */
export const otherLabel = "other";

export type FoldedLabel = "group" | "kind" | "namespace" | "user";

export interface ConfirmedLabels {
  group: string;
  kind: string;
  /** "" for cluster-scoped targets. */
  namespace: string;
  /** The labels that were folded into "other" because the apiserver did not confirm them. */
  folded: FoldedLabel[];
}

export interface WriteTarget {
  group: string;
  version: string;
  resource: string;
  namespace: string;
}

function succeeded(code: number): boolean {
  return code >= 200 && code < 300;
}

/**
 * group/kind when discovery serves the resource; namespace when the write
 * succeeded (the apiserver wrote an object there) or the namespace is known to
 * exist. Call it for every write of a batch before awaiting any: a success
 * confirms its namespace synchronously, for the failures after it.
 */
export async function confirmedLabels(
  resolver: KindResolver,
  target: WriteTarget,
  code: number,
): Promise<ConfirmedLabels> {
  const namespaceWritten = target.namespace !== "" && succeeded(code);
  if (namespaceWritten) resolver.namespaceConfirmed(target.namespace);
  const folded: FoldedLabel[] = [];
  const kind = await resolver.kindOf(target.group, target.version, target.resource).catch(() => undefined);
  if (kind === undefined) folded.push("group", "kind");
  let namespace = target.namespace;
  if (
    namespace !== "" &&
    !namespaceWritten &&
    !(await resolver.namespaceExists(namespace).catch(() => false))
  ) {
    namespace = otherLabel;
    folded.push("namespace");
  }
  return {
    group: kind === undefined ? otherLabel : target.group,
    kind: kind ?? otherLabel,
    namespace,
    folded,
  };
}
