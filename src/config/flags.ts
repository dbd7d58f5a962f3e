// Command-line flags. They override the matching configuration-file fields.
import { parseArgs } from "node:util";
import { ConfigError } from "./validate.ts";

export interface Flags {
  config: string | undefined;
  kubeconfig: string | undefined;
  context: string | undefined;
  listen: string | undefined;
  metricPrefix: string | undefined;
  logLevel: string | undefined;
  tracingEndpoint: string | undefined;
  help: boolean;
  version: boolean;
}

export const usage = `Usage: cr-status-exporter [flags]

  --config PATH            YAML configuration file (see config.example.yaml); reloaded when it changes
  --kubeconfig PATH        kubeconfig to use (default: $KUBECONFIG, ~/.kube/config, or in-cluster)
  --context NAME           kubeconfig context to use
  --listen HOST:PORT       where to serve /metrics, /healthz, /readyz (default 127.0.0.1:9184)
  --metric-prefix PREFIX   prefix of every metric name (default cr_)
  --log-level LEVEL        debug, info, warn or error (default info)
  --tracing-endpoint URL   OTLP/HTTP traces endpoint (default: OTEL_EXPORTER_OTLP_* variables; off when unset)
  --version                print the version and exit
  --help                   print this help and exit
`;

export function parseFlags(argv: string[]): Flags {
  try {
    const { values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        config: { type: "string" },
        kubeconfig: { type: "string" },
        context: { type: "string" },
        listen: { type: "string" },
        "metric-prefix": { type: "string" },
        "log-level": { type: "string" },
        "tracing-endpoint": { type: "string" },
        help: { type: "boolean", default: false },
        version: { type: "boolean", default: false },
      },
    });
    return {
      config: values.config,
      kubeconfig: values.kubeconfig,
      context: values.context,
      listen: values.listen,
      metricPrefix: values["metric-prefix"],
      logLevel: values["log-level"],
      tracingEndpoint: values["tracing-endpoint"],
      help: values.help ?? false,
      version: values.version ?? false,
    };
  } catch (error) {
    throw new ConfigError([`command line: ${(error as Error).message}`]);
  }
}
