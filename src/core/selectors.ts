// Matching CRDs against the configured selectors: API group globs, CRD
// categories, and equality-based label selectors on the CRD objects.

/** `*` matches any run of characters; everything else is literal. */
export function globMatch(pattern: string, text: string): boolean {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*");
  return new RegExp(`^${escaped}$`).test(text);
}

type Requirement = { key: string; op: "=" | "!=" | "exists" | "!exists"; value: string };

/** Parses `a=b,c!=d,e,!f` (equality-based selectors). Throws on anything else. */
export function parseLabelSelector(selector: string): Requirement[] {
  const out: Requirement[] = [];
  for (const part of selector.split(",").map((p) => p.trim())) {
    if (part === "") continue;
    let match = /^([A-Za-z0-9._/-]+)\s*(==|=|!=)\s*([A-Za-z0-9._-]*)$/.exec(part);
    if (match) {
      out.push({ key: match[1] as string, op: match[2] === "!=" ? "!=" : "=", value: match[3] as string });
      continue;
    }
    match = /^(!?)([A-Za-z0-9._/-]+)$/.exec(part);
    if (match) {
      out.push({ key: match[2] as string, op: match[1] ? "!exists" : "exists", value: "" });
      continue;
    }
    throw new Error(`unsupported label selector term "${part}" (use key=value, key!=value, key or !key)`);
  }
  return out;
}

export function labelsMatch(selector: string, labels: Record<string, string>): boolean {
  return parseLabelSelector(selector).every((r) => {
    const value = labels[r.key];
    switch (r.op) {
      case "=":
        return value === r.value;
      case "!=":
        return value !== r.value;
      case "exists":
        return value !== undefined;
      default:
        return value === undefined;
    }
  });
}
