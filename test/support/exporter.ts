// Runs the exporter in-process against a test control plane, through the same
// composition root main.ts uses, and reads its /metrics as parsed samples.
import { type App, type AppDeps, buildApp } from "../../src/app/build.ts";
import { validateConfig } from "../../src/config/validate.ts";
import { loadKubeConfig } from "../../src/kube/kubeconfig.ts";
import { createLogger, type Logger } from "../../src/log.ts";
import { type ParsedExposition, parseExposition } from "./exposition-check.ts";

export interface ExporterHandle {
  exporter: App;
  logs: string[];
  scrape(accept?: string): Promise<ParsedExposition & { text: string }>;
  stop(): Promise<void>;
}

export async function runExporter(
  kubeconfigPath: string,
  config: Record<string, unknown>,
  deps: Partial<Pick<AppDeps, "env" | "spanProcessors">> = {},
): Promise<ExporterHandle> {
  const kubeConfig = await loadKubeConfig({ path: kubeconfigPath, context: undefined });
  const logs: string[] = [];
  const logger: Logger = createLogger({ level: "debug", write: (line) => logs.push(line) });
  const exporter = await buildApp(validateConfig({ listen: "127.0.0.1:0", ...config }), {
    kubeConfig,
    logger,
    configHash: "test",
    // Tracing (and its OTEL_* variables) only when a test asks for it.
    env: {},
    // Short watches so reconnects happen during tests too.
    listWatch: { watchTimeoutSeconds: [5, 10], inactivityMs: 30_000 },
    ...deps,
  });
  try {
    await exporter.start();
  } catch (error) {
    throw new Error(`the exporter did not start: ${String(error)}\n${logs.join("\n")}`, { cause: error });
  }
  return {
    exporter,
    logs,
    async scrape(accept?: string) {
      const response = await fetch(`${exporter.url}/metrics`, accept ? { headers: { Accept: accept } } : {});
      const text = await response.text();
      return { ...parseExposition(text), text };
    },
    stop: () => exporter.stop(),
  };
}

/** Renders a label set the way the exporter does, for sample lookups. */
export function series(name: string, labels: Record<string, string>): string {
  const body = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(",");
  return `${name}{${body}}`;
}

export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ""}`);
}
