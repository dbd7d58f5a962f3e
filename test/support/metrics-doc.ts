// The metric families listed in docs/metrics.md (first column of its tables).
import { readFileSync } from "node:fs";

export function documentedFamilies(): Map<string, string> {
  const text = readFileSync(new URL("../../docs/metrics.md", import.meta.url), "utf8");
  const families = new Map<string, string>();
  for (const match of text.matchAll(/^\|\s*`([a-z_:][a-z0-9_:]*)`\s*\|\s*(gauge|counter|histogram)\s*\|/gm)) {
    families.set(match[1] as string, match[2] as string);
  }
  return families;
}
