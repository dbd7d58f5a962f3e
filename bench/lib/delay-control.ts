// An idle Node.js process that measures its own event-loop delay as the
// exporter does (monitorEventLoopDelay at 10 ms resolution, the largest delay
// since the last read), read at the end of each scrape of ours. It does
// nothing else, so whatever delay it reads is the machine's share (other
// processes, the hypervisor): ours is judged beside it.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { track } from "./proc.ts";

export interface DelayControl {
  /** The largest delay since the previous read (ms; an idle process reads the 10 ms resolution), and restarts. */
  read(): Promise<number>;
  stop(): void;
}

// CommonJS (node -e): read one line, answer the maximum, reset.
const script = `
const { monitorEventLoopDelay } = require("node:perf_hooks");
const histogram = monitorEventLoopDelay({ resolution: 10 });
histogram.enable();
process.stdin.setEncoding("utf8");
process.stdin.on("data", () => {
  process.stdout.write(String(histogram.max / 1e6) + "\\n");
  histogram.reset();
});
process.stdout.write("ready\\n");
`;

export async function startDelayControl(): Promise<DelayControl> {
  const child = spawn(process.execPath, ["-e", script], { stdio: ["pipe", "pipe", "inherit"] });
  track(child);
  const lines = createInterface({ input: child.stdout });
  const waiting: { resolve(line: string): void; reject(error: Error): void }[] = [];
  lines.on("line", (line) => waiting.shift()?.resolve(line));
  child.once("exit", (code) => {
    for (const w of waiting.splice(0)) w.reject(new Error(`the delay control process exited (${code})`));
  });
  const next = (): Promise<string> => new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  const ready = await next();
  if (ready !== "ready") throw new Error(`the delay control process said ${JSON.stringify(ready)}`);
  return {
    async read() {
      const answer = next();
      child.stdin.write("read\n");
      const ms = Number(await answer);
      if (!Number.isFinite(ms)) throw new Error("the delay control process answered no number");
      return ms;
    },
    stop() {
      child.kill();
    },
  };
}
