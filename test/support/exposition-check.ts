// A strict reader of the Prometheus text format, used to assert that output is
// well formed: every sample line parses, label values are properly escaped,
// each family has one HELP/TYPE block before its samples, and no series repeats.
const sampleLine =
  /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*")*)?\})? (-?[0-9.]+(?:[eE][+-]?[0-9]+)?|[Nn][Aa][Nn]|[+-]Inf)$/;

export interface ParsedExposition {
  families: Map<string, string>;
  samples: Map<string, number>;
}

export function parseExposition(text: string): ParsedExposition {
  const families = new Map<string, string>();
  const samples = new Map<string, number>();
  const headers = new Set<string>();
  let current = "";
  for (const line of text.split("\n")) {
    if (line === "" || line === "# EOF") continue;
    if (line.startsWith("# HELP ")) {
      const name = line.split(" ")[2] as string;
      if (headers.has(name)) throw new Error(`second HELP for ${name}`);
      headers.add(name);
      current = name;
      continue;
    }
    if (line.startsWith("# TYPE ")) {
      const [, , name, type] = line.split(" ");
      families.set(name as string, type as string);
      continue;
    }
    if (line.startsWith("#")) throw new Error(`unexpected comment: ${line}`);
    const match = sampleLine.exec(line);
    if (!match) throw new Error(`malformed sample line: ${line}`);
    const name = match[1] as string;
    if (!name.startsWith(current)) throw new Error(`sample ${name} outside its family block (${current})`);
    const key = `${name}${match[2] ?? ""}`;
    if (samples.has(key)) throw new Error(`duplicate series: ${key}`);
    samples.set(key, Number(match[3]));
  }
  return { families, samples };
}
