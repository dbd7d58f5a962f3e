// Summarizes a V8 .cpuprofile (from `node --cpu-prof`, e.g. `npm run bench --
// --cpu-prof DIR`): self time by function and by file, largest first.
//
//   node bench/profile-summary.ts DIR/CPU.*.cpuprofile [top=25]
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write("usage: node bench/profile-summary.ts FILE.cpuprofile [top]\n");
  process.exit(2);
}
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, "utf8")) as {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
};
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => {
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
for (const [id, us] of selfUs) {
  const frame = byId.get(id)?.callFrame;
  if (!frame) continue;
  const where = frame.url.replace(/^file:\/\/.*?\/(src|node_modules)\//, "$1/") || "(native)";
  const name = `${frame.functionName || "(anonymous)"} ${where}:${frame.lineNumber + 1}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  byFile.set(where, (byFile.get(where) ?? 0) + us);
}
const print = (title: string, map: Map<string, number>): void => {
  process.stdout.write(`\n${title} (of ${(total / 1e6).toFixed(2)} s sampled)\n`);
  for (const [name, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(
      `${((us / total) * 100).toFixed(1).padStart(5)}%  ${(us / 1e3).toFixed(0).padStart(7)} ms  ${name}\n`,
    );
  }
};
print("self time by function", byFunction);
print("self time by file", byFile);
