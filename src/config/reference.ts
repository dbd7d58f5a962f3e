// The configuration reference and JSON Schema, written from the option
// tables (scripts/generate.ts writes them to docs/; a unit test keeps the
// committed files equal to these). Pure.
import { Type } from "typebox";
import { celCostLimit, maxCelLength } from "../cel/compile.ts";
import { celFailures } from "../core/cel.ts";
import { flagOfKey } from "./flags.ts";
import { type Option, type OptionTable, tableKeys } from "./option.ts";
import { configSchema, configTable } from "./options.ts";
import { resourceOptionTable } from "./resource-options.ts";
import { selectorTable } from "./validate-resources.ts";

export const referencePath = "docs/configuration.md";
export const schemaPath = "docs/config.schema.json";

/** The JSON Schema document of a configuration file. */
export function configJsonSchema(): string {
  const document = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "cr-status-exporter configuration",
    description:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the file's own ${VAR} syntax, named
      "The --config file of cr-status-exporter (docs/configuration.md), after ${VAR} substitution. Every key is optional.",
    ...configSchema(Type),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

const cell = (text: string): string => text.replaceAll("|", "\\|");

function rows(table: OptionTable, prefix: string): string[] {
  return Object.values(table).map((o: Option<unknown>) => {
    const flag = flagOfKey.get(`${prefix}${o.key}`);
    const meaning = flag ? `${o.doc} Flag: \`${flag}\`.` : o.doc;
    return `| \`${prefix}${o.key}\` | ${o.shown ? `\`${cell(o.shown)}\`` : ""} | ${cell(meaning)} |`;
  });
}

function tableBlock(title: string, intro: string, table: OptionTable, prefix: string): string[] {
  return [
    `## ${title}`,
    "",
    ...(intro ? [intro, ""] : []),
    "| Key | Default | Meaning |",
    "| --- | --- | --- |",
    ...rows(table, prefix),
    "",
  ];
}

/** docs/configuration.md: every key of the file, its default and its meaning. */
export function configReference(): string {
  const sections = Object.values(configTable).filter((o: Option<unknown>) => o.table !== undefined);
  const lines = [
    "# Configuration reference",
    "",
    "<!-- Written by `npm run generate` from src/config/options.ts, resource-options.ts and the sections beside",
    "     their readers; a unit test keeps it equal. Edit the tables, not this file. -->",
    "",
    "Every key is optional: a file holding only `{}` (or no `--config`) watches every CRD with the defaults below. An empty file is refused, so a truncated or mangled file never silently means every CRD.",
    "config.example.yaml shows them in use; docs/config.schema.json is the file's JSON Schema (for editors:",
    "`# yaml-language-server: $schema=…`). Durations are written `90s`, `5m`, `1h`, `250ms` or as seconds; an",
    "empty default means unset (the meaning says what that does). Flags override the file (`--help`).",
    "",
    ...tableBlock("Top level", "", configTable, ""),
    ...sections.flatMap((o) => tableBlock(o.key, o.doc, o.table as OptionTable, `${o.key}.`)),
    ...tableBlock(
      "resources[]: which resource types",
      `${configTable.resources.doc} An entry is explicit or a discovery entry, never both.`,
      selectorTable,
      "",
    ),
    ...tableBlock(
      "resources[]: per-resource options",
      "Any entry may give these. A discovery entry's `kinds: [{kind | resource, group?, …options}]` gives them again for some of its kinds (the first match wins; what an override gives replaces the entry's value for that kind, and an override's `readiness` replaces the entry's `readyCondition` and `phaseResults`, and the other way round).",
      resourceOptionTable,
      "",
    ),
    ...celSection(),
  ];
  return `${lines.join("\n").trimEnd()}\n`;
}

/** How CEL expressions (`readiness.cel`, a value's `cel`) are read, evaluated and bounded. */
function celSection(): string[] {
  const limit = celCostLimit.toLocaleString("en-US");
  return [
    "## CEL",
    "",
    "Where the options cannot say it, a [CEL](https://cel.dev) expression can: `readiness: {cel}` decides `cr_status` for a kind, and `values: [{cel, name}]` computes a `cr_value{field=name}` series. Expressions are compiled with @bufbuild/cel (conformance-tested) once per load: one that does not parse, uses an undeclared name or function (`resources[0].readiness.cel: undeclared reference to 'objct' at 1:1`) or is longer than " +
      `${maxCelLength} characters is a configuration error naming its key, and on reload the last good configuration keeps running. The library is loaded with the first expression only (about 26 MiB of RSS and 0.2–0.4 s once).`,
    "",
    "- **The object.** One variable, `object`: the custom resource as the API returned it (`object.metadata`, `object.spec`, `object.status`). Integral JSON numbers are `int`, the others `double`, as Kubernetes decodes unstructured objects: `object.status.readyReplicas + 1` works, `object.status.ratio + 1` does not (write `1.0`), and a ratio is `double(a) / double(b)`. RFC 3339 strings stay strings: `timestamp(object.status.notAfter)`. A missing field is an error unless guarded: `has(object.status.x) ? … : …`.",
    "- **The language.** The standard definitions: `has`, `all`, `exists`, `exists_one`, `map`, `filter`, `size`, `in`, `contains`, `startsWith`, `endsWith`, `matches` (RE2), the conversions, `timestamp` and `duration` with their accessors. No extension libraries, and no clock: an expression is evaluated on each object version, so anything computed from `now` would go stale between events — export the timestamp and compare it with `time()` in PromQL.",
    '- **Readiness.** `"Current"`, `"InProgress"` or `"Failed"`, or a bool (true `Current`, false `InProgress`). It alone decides: the readiness condition, `phaseResults`, state fields, stalled and reconciling conditions and the generation check do not enter unless the expression reads them (`object.status.observedGeneration == object.metadata.generation && …`); `Terminating` still comes first. Giving `readiness` with `readyCondition`, `phaseResults` or states with `ready`/`failed` in the same mapping is an error naming both; in `kinds` the choice of an override replaces the entry\'s. `cr_exporter_resource_info` says `readiness_source="cel"`. What follows the judged result follows the expression: `cr_status`, time to ready, the reconcile histogram, the generation spans and the `CustomResourceFailed` alert.',
    "- **Values.** A number; a bool as 1 or 0; a timestamp as Unix seconds; a duration as seconds; `null` for no value (no series, no error). `name` is required (the `field` label).",
    `- **Failed evaluations** never stop the exporter: the readiness expression makes the object \`Unknown\`, a value has no series. Each is counted in \`cr_exporter_cel_errors_total{group, version, kind, field, reason}\` (\`field\`: \`readiness.cel\` or the value's name; \`reason\`: ${celFailures.map((r) => `\`${r}\``).join(", ")}; 5 series per expression, at 0 from the start) and logged as a warning at most once a minute per resource and reason, with the object and the error.`,
    `- **Cost limit.** @bufbuild/cel has none, so each evaluation is metered: a function call costs 1 plus its arguments' sizes (a string's length, a list's or map's entries; deeply for \`==\`, \`!=\` and \`in\`), and a comprehension costs its range's size times the expression nodes of its body, charged before it runs. Past ${limit} units the evaluation stops with \`cost_limit\`. Measured on a shared 2-core machine: a readiness expression over a typical object takes 10–15 µs (the object's conversion included); the worst expressions found (nested \`all\` over a 10,000-element list, \`in\` or \`==\` over it in a loop, a 1 MB string matched in a loop) stop at the limit after 15–35 ms. \`map\` and \`filter\` build their result element by element, so a result of n elements costs about n²/2: about 1,400 elements at most.`,
    "- **Before deploying**, `cr-status-exporter explain` evaluates each expression on the sampled objects of its kind: the first five results and the count of failures by reason.",
    "",
  ];
}

/** Every key a resource entry may give, for tests and the example's check. */
export const resourceEntryKeys = [...tableKeys(selectorTable), ...tableKeys(resourceOptionTable), "kinds"];

/** The generated files, keyed by path. */
export function generatedConfigFiles(): Map<string, string> {
  return new Map([
    [referencePath, configReference()],
    [schemaPath, configJsonSchema()],
  ]);
}
