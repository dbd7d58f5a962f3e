// The configuration reference and JSON Schema, written from the option
// tables (scripts/generate.ts writes them to docs/; a unit test keeps the
// committed files equal to these). Pure.
import { Type } from "typebox";
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
      "Any entry may give these. A discovery entry's `kinds: [{kind | resource, group?, …options}]` gives them again for some of its kinds (the first match wins; what an override gives replaces the entry's value for that kind).",
      resourceOptionTable,
      "",
    ),
  ];
  return `${lines.join("\n").trimEnd()}\n`;
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
