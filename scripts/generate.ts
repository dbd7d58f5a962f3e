// `npm run generate`: writes every generated monitoring file (alert rules,
// PrometheusRule, Grafana dashboards). The files are committed; a unit test
// fails when they differ from what this script would write.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { generatedFiles } from "./generated-files.ts";

const root = join(import.meta.dirname, "..");
for (const [path, content] of generatedFiles()) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
  console.log(`wrote ${path}`);
}
