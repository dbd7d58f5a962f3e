// Checks dashboard JSON against the types of Grafana's foundation SDK, at
// generation time: the JSON is written out as TypeScript literals typed with
// the SDK's dashboard, variable, query and per-panel option types (string
// enums as their values) and the TypeScript compiler checks them. An unknown
// key, a missing required option or a value outside an enum fails, naming the
// dashboard and panel. Panel options and custom field config are checked
// against the SDK module of the panel's type.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Dashboard } from "./layout.ts";

const require = createRequire(import.meta.url);

/** Panel type → the SDK module typing its options and its custom field config (none: no custom config). */
const PANEL_MODULES: Readonly<Record<string, { module: string; custom: boolean }>> = {
  stat: { module: "stat", custom: false },
  timeseries: { module: "timeseries", custom: true },
  table: { module: "table", custom: true },
  "state-timeline": { module: "statetimeline", custom: true },
  heatmap: { module: "heatmap", custom: true },
  text: { module: "text", custom: false },
};

// JSON<T>: what T looks like as JSON. String enums become their values, methods
// (the SDK's query marker) disappear; `any` stays any.
const PRELUDE = `
type JSON<T> = 0 extends 1 & T ? any
  : T extends string ? \`\${T}\`
  : T extends number | boolean | null | undefined ? T
  : T extends readonly (infer U)[] ? JSON<U>[]
  : T extends object ? { [K in keyof T as T[K] extends ((...args: never[]) => unknown) ? never : K]: JSON<T[K]> }
  : T;
type Query = JSON<prometheus.Dataquery>;
type Panel<Type extends string, Options, Custom> = JSON<Omit<dashboard.Panel, "type" | "options" | "fieldConfig" | "targets">> & {
  type: Type;
  options: JSON<Options>;
  targets?: Query[];
  fieldConfig: {
    defaults: JSON<Omit<dashboard.FieldConfig, "custom">> & { custom?: JSON<Custom> };
    overrides: JSON<dashboard.FieldConfigSource["overrides"]>;
  };
};
type Row = JSON<dashboard.RowPanel>;
type Shell = JSON<Omit<dashboard.Dashboard, "panels">> & { panels: [] };
`;

function sdkRoot(): string {
  // …/dist/dashboard/index.js → …/dist
  return dirname(dirname(require.resolve("@grafana/grafana-foundation-sdk/dashboard")));
}

function tscPath(): string {
  return join(dirname(require.resolve("typescript/package.json")), "bin", "tsc");
}

interface Declaration {
  readonly where: string;
  readonly text: string;
}

function declarations(dashboards: readonly Dashboard[]): Declaration[] {
  const out: Declaration[] = [];
  dashboards.forEach((d, i) => {
    const { panels, ...shell } = d;
    out.push({
      where: `${d.uid}`,
      text: `export const d${i}: Shell = ${JSON.stringify({ ...shell, panels: [] })};`,
    });
    panels.forEach((p, j) => {
      const where = `${d.uid} panel ${p.id} "${p.title}"`;
      const name = `d${i}p${j}`;
      if (p.type === "row") {
        out.push({ where, text: `export const ${name}: Row = ${JSON.stringify(p)};` });
        return;
      }
      const typed = PANEL_MODULES[p.type];
      if (!typed) throw new Error(`${where}: panel type "${p.type}" has no SDK module to check it against`);
      const type = `Panel<${JSON.stringify(p.type)}, ${typed.module}.Options, ${typed.custom ? `${typed.module}.FieldConfig` : "never"}>`;
      out.push({ where, text: `export const ${name}: ${type} = ${JSON.stringify(p)};` });
    });
  });
  return out;
}

/** Throws, listing every violation by dashboard and panel, when the JSON does not fit the SDK's types. */
export function assertSdkTypes(dashboards: readonly Dashboard[]): void {
  const root = sdkRoot();
  const modules = ["dashboard", "prometheus", ...new Set(Object.values(PANEL_MODULES).map((m) => m.module))];
  const imports = modules.map((m) => `import type * as ${m} from "sdk/${m}";`).join("\n");
  const decls = declarations(dashboards);
  const header = `${imports}\n${PRELUDE}\n`;
  const firstLine = header.split("\n").length;
  const dir = mkdtempSync(join(tmpdir(), "dashboard-types-"));
  try {
    writeFileSync(join(dir, "check.ts"), header + decls.map((d) => d.text).join("\n"));
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: "es2024",
          module: "nodenext",
          moduleResolution: "nodenext",
          skipLibCheck: true,
          types: [],
          paths: { "sdk/*": [`${root}/*/index.d.ts`] },
        },
        files: ["check.ts"],
      }),
    );
    try {
      execFileSync(process.execPath, [tscPath(), "-p", join(dir, "tsconfig.json"), "--pretty", "false"], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (error) {
      const output = String((error as { stdout?: string }).stdout ?? error);
      const problems = [...output.matchAll(/check\.ts\((\d+),\d+\): error (TS\d+: .*)/g)].map(
        ([, line, message]) => {
          const decl = decls[Number(line) - firstLine];
          return `${decl?.where ?? `line ${line}`}: ${message}`;
        },
      );
      throw new Error(
        `dashboard JSON does not match the Grafana foundation SDK's types:\n${(problems.length > 0 ? problems : [output]).join("\n")}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
