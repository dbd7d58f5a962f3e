// `cr-status-exporter status`: what is not Ready, from a running exporter's
// API (--server) or straight from the cluster with the current kubeconfig
// (one list per resource, projected by the exporter's own code). Exit codes:
// 0 fine, 1 --fail-if-not-ready and something listed is not Ready, 2 an error
// (bad flags or configuration, unreachable server, a --kind that names no
// watched kind, a resource that could not be listed — whatever could be
// listed is still printed). A misspelt --kind is an error, not an empty
// table: with --fail-if-not-ready it would be a gate that always passes.
import { parseArgs } from "node:util";
import { loadConfigFile } from "../config/load.ts";
import { toObjectView } from "../status/from-state.ts";
import { type ObjectItemJson, objectItem, outputSettingsOf } from "../status/json.ts";
import { type KindNames, namesKind } from "../status/kind-name.ts";
import { runQuery } from "../status/query.ts";
import { emptyFilter, type ObjectQuery, type SortOrder, sortOrders } from "../status/query-params.ts";
import type { ObjectView } from "../status/view.ts";
import { connect, listProjected, planMatchesKind, resourcePlans } from "./cluster.ts";
import type { CliIo } from "./io.ts";
import { getText, loadCredentials, type ServerAccess, type ServerReply } from "./server-get.ts";
import { formatItems, type OutputFormat, outputFormats } from "./status-output.ts";

export const statusUsage = `Usage: cr-status-exporter status [flags]

Lists custom resources with their Ready condition, reason, since when, generation lag and age.

  --server URL             read from a running exporter's API (e.g. http://127.0.0.1:9184)
                           instead of listing the cluster with the current kubeconfig
      --token-file PATH    bearer token for an exporter with \`metricsAuth: kubernetes\` (https only)
      --ca-file PATH       CA certificate(s) that signed the exporter's serving certificate
      --tls-server-name NAME  check the certificate for this name (e.g. its Service's DNS name
                           when reaching it through kubectl port-forward on 127.0.0.1)
      --insecure-skip-tls-verify  do not check the certificate at all
  -o, --output FORMAT      table (default), wide, json or yaml
      --not-ready          only objects that are not Ready (kstatus result other than Current)
  -n, --namespace NS       only this namespace
  -l, --selector SEL       label selector (key=value,key!=value,key,!key); with --server it matches the
                           labels the exporter copies (config \`labels\`)
      --name TEXT          only objects whose name contains TEXT
      --kind KIND          only this kind (Kind, plural or plural.group); repeatable; a name
                           that no watched kind has is an error (exit 2)
      --sort ORDER         ${sortOrders.join(", ")} (default notReady: longest not Ready first)
      --fail-if-not-ready  exit 1 when any object listed is not Ready
  -w, --watch              list again every --interval seconds (default 2) until Ctrl-C
      --config PATH        configuration file: which resources and how (default: every CRD)
      --kubeconfig PATH, --context NAME
  -h, --help
`;

export interface StatusFlags extends ServerAccess {
  server: string | undefined;
  output: OutputFormat;
  notReady: boolean;
  namespace: string | undefined;
  selector: string | undefined;
  /** Only objects whose name contains this (as the page's name filter). */
  name: string | undefined;
  /** --watch: the table again every this many seconds; undefined: once. */
  watchSeconds: number | undefined;
  kinds: string[];
  sort: SortOrder;
  failIfNotReady: boolean;
  config: string | undefined;
  kubeconfig: string | undefined;
  context: string | undefined;
  help: boolean;
}

export class UsageError extends Error {}

const statusOptions = {
  server: { type: "string" },
  "token-file": { type: "string" },
  "ca-file": { type: "string" },
  "tls-server-name": { type: "string" },
  "insecure-skip-tls-verify": { type: "boolean", default: false },
  output: { type: "string", short: "o", default: "table" },
  "not-ready": { type: "boolean", default: false },
  namespace: { type: "string", short: "n" },
  selector: { type: "string", short: "l" },
  name: { type: "string" },
  watch: { type: "boolean", short: "w", default: false },
  interval: { type: "string" },
  kind: { type: "string", multiple: true, default: [] as string[] },
  sort: { type: "string", default: "notReady" },
  "fail-if-not-ready": { type: "boolean", default: false },
  config: { type: "string" },
  kubeconfig: { type: "string" },
  context: { type: "string" },
  help: { type: "boolean", short: "h", default: false },
} as const;

type StatusValues = ReturnType<typeof parseStatusArgs>["values"];

function parseStatusArgs(argv: string[]) {
  return parseArgs({ args: argv, strict: true, allowPositionals: false, options: statusOptions });
}

/** --watch's period: --interval (whole seconds, default 2); a gate (--fail-if-not-ready) cannot watch. */
function watchSeconds(values: StatusValues): number | undefined {
  if (!values.watch) {
    if (values.interval !== undefined) throw new UsageError("--interval: only with --watch");
    return undefined;
  }
  if (values["fail-if-not-ready"])
    throw new UsageError(
      "--watch: not with --fail-if-not-ready (a gate answers once; a watch runs until Ctrl-C)",
    );
  const text = values.interval ?? "2";
  if (!/^\d{1,5}$/.test(text) || Number(text) < 1)
    throw new UsageError(`--interval: expected whole seconds ≥ 1, got "${text}"`);
  return Number(text);
}

/** The flags that reach the exporter's API: an http(s) URL, and credentials only over https. */
function checkServerAccess(values: StatusValues): void {
  if (values.server !== undefined && !/^https?:\/\/[^\s]+$/.test(values.server))
    throw new UsageError(
      `--server: expected an http(s) URL such as http://127.0.0.1:9184, got "${values.server}"`,
    );
  const https = values.server?.startsWith("https:") ?? false;
  for (const flag of ["token-file", "ca-file", "tls-server-name", "insecure-skip-tls-verify"] as const) {
    if (values[flag] === undefined || values[flag] === false) continue;
    if (values.server === undefined)
      throw new UsageError(`--${flag}: only with --server (the cluster is reached with the kubeconfig)`);
    // A bearer token in clear text can be read by anyone on the path and replayed against the cluster.
    if (!https) throw new UsageError(`--${flag}: only with an https:// --server, got "${values.server}"`);
  }
}

export function parseStatusFlags(argv: string[]): StatusFlags {
  let values: StatusValues;
  try {
    values = parseStatusArgs(argv).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const output = values.output as OutputFormat;
  if (!outputFormats.includes(output))
    throw new UsageError(`--output: expected one of ${outputFormats.join(", ")}, got "${values.output}"`);
  const sort = values.sort as SortOrder;
  if (!sortOrders.includes(sort))
    throw new UsageError(`--sort: expected one of ${sortOrders.join(", ")}, got "${values.sort}"`);
  checkServerAccess(values);
  return {
    server: values.server?.replace(/\/+$/, ""),
    tokenFile: values["token-file"],
    caFile: values["ca-file"],
    tlsServerName: values["tls-server-name"],
    insecureSkipTlsVerify: values["insecure-skip-tls-verify"] ?? false,
    output,
    notReady: values["not-ready"] ?? false,
    namespace: values.namespace,
    selector: values.selector,
    name: values.name,
    watchSeconds: watchSeconds(values),
    kinds: (values.kind ?? []).flatMap((k) => k.split(",")).filter((k) => k !== ""),
    sort,
    failIfNotReady: values["fail-if-not-ready"] ?? false,
    config: values.config,
    kubeconfig: values.kubeconfig,
    context: values.context,
    help: values.help ?? false,
  };
}

/** Throws when a --kind names none of the watched kinds, naming those that are watched. */
export function checkKindNames(wanted: readonly string[], watched: readonly KindNames[]): void {
  const unknown = wanted.filter((w) => !watched.some((k) => namesKind(k, w)));
  if (unknown.length === 0) return;
  const names = watched.map((k) => `${k.kind} (${k.resource}.${k.group})`).sort();
  throw new Error(
    `--kind ${unknown.join(", ")}: no watched kind has this name (Kind, plural or plural.group); watched: ${names.join(", ") || "none"}`,
  );
}

/** The kinds the exporter at --server watches (its summary lists them all, also those without objects). */
async function serverKinds(flags: StatusFlags, credentials: ReturnType<typeof loadCredentials>) {
  const url = `${flags.server}/api/v1/summary`;
  let reply: ServerReply;
  try {
    reply = await getText(url, credentials, 30_000);
  } catch (error) {
    throw new Error(`cannot reach ${url}: ${(error as Error).message}`);
  }
  const body = parseJson<{ kinds?: KindNames[]; error?: { message?: string } }>(reply.body);
  if (reply.status !== 200 || !body?.kinds) throw new Error(`${url}: ${replyError(reply, body)}`);
  return body.kinds;
}

/** Every item from the exporter's API, following continue tokens. */
export async function itemsFromServer(flags: StatusFlags): Promise<ObjectItemJson[]> {
  const params = new URLSearchParams({ limit: "500", sort: flags.sort });
  for (const kind of flags.kinds) params.append("kind", kind);
  if (flags.namespace !== undefined) params.set("namespace", flags.namespace);
  if (flags.notReady) params.set("notReady", "true");
  if (flags.selector !== undefined) params.set("labelSelector", flags.selector);
  if (flags.name !== undefined) params.set("name", flags.name);
  const credentials = loadCredentials(flags);
  if (flags.kinds.length > 0) checkKindNames(flags.kinds, await serverKinds(flags, credentials));
  const items: ObjectItemJson[] = [];
  for (;;) {
    const url = `${flags.server}/api/v1/objects?${params}`;
    let reply: ServerReply;
    try {
      reply = await getText(url, credentials, 30_000);
    } catch (error) {
      throw new Error(`cannot reach ${url}: ${(error as Error).message}`);
    }
    const body = parseJson<ObjectsReply>(reply.body);
    if (reply.status !== 200 || !body?.items) throw new Error(`${url}: ${replyError(reply, body)}`);
    items.push(...body.items);
    if (!body.continue) return items;
    params.set("continue", body.continue);
  }
}

interface ObjectsReply {
  items?: ObjectItemJson[];
  continue?: string | null;
  error?: { message?: string };
}

function parseJson<T>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

/** The status with the server's own words (JSON error or the text of a 401/403), and what to do about it. */
function replyError(reply: ServerReply, body: { error?: { message?: string } } | undefined): string {
  const said = body?.error?.message ?? reply.body.trim().split("\n")[0]?.slice(0, 300) ?? "";
  const hint =
    reply.status === 401
      ? " (the exporter asks for a token: --token-file)"
      : reply.status === 403
        ? " (the token's user needs `get` on the non-resource URL / ; see docs/api.md)"
        : "";
  return `HTTP ${reply.status}${said ? `: ${said}` : ""}${hint}`;
}

/** Every item straight from the cluster; list failures go to `failures` and do not stop the others. */
export async function itemsFromCluster(
  flags: StatusFlags,
  now: number,
  failures: string[],
): Promise<ObjectItemJson[]> {
  const config = loadConfigFile(flags.config).config;
  const client = await connect(flags);
  const { plans } = await resourcePlans(client, config);
  checkKindNames(
    flags.kinds,
    plans.map((p) => p.identity),
  );
  const wanted = plans.filter(
    (p) => flags.kinds.length === 0 || flags.kinds.some((k) => planMatchesKind(p, k)),
  );
  const views: ObjectView[] = [];
  for (const plan of wanted) {
    try {
      const listed = await listProjected(client, plan, {
        namespace: flags.namespace,
        labelSelector: flags.selector,
      });
      if (listed.skipped > 0)
        failures.push(`${plan.key}: ${listed.skipped} objects without metadata.uid or name skipped`);
      const status = listed.plan.readiness;
      for (const state of listed.states) {
        views.push(
          toObjectView({
            identity: plan.identity,
            state,
            status,
            now,
            flappingWindowSeconds: config.statusPage.flappingWindowSeconds,
          }),
        );
      }
    } catch (error) {
      failures.push(`${plan.key}: ${(error as Error).message}`);
    }
  }
  const filter = { ...emptyFilter(), notReady: flags.notReady ? true : undefined, name: flags.name };
  const query: ObjectQuery = {
    filter,
    sort: flags.sort,
    limit: Number.MAX_SAFE_INTEGER,
    continueToken: undefined,
  };
  const settings = outputSettingsOf(config.statusPage);
  return runQuery(views, query, settings).items.map((v) => objectItem(v, now, settings));
}

export async function runStatus(argv: string[], io: CliIo): Promise<number> {
  const flags = parseStatusFlags(argv);
  if (flags.help) {
    io.stdout(statusUsage);
    return 0;
  }
  return flags.watchSeconds === undefined
    ? await listOnce(flags, io)
    : await watch(flags, io, flags.watchSeconds);
}

/** On a terminal: cursor home and clear, so each table replaces the last. */
const clearScreen = "\x1b[H\x1b[2J";

/**
 * The table again every `seconds` until Ctrl-C (exit 0), like watch(1): on a
 * terminal each replaces the last, elsewhere they follow each other under a
 * time line. A failing pass is said and the next one tried.
 */
async function watch(flags: StatusFlags, io: CliIo, seconds: number): Promise<number> {
  do {
    io.stdout(
      `${io.interactive ? clearScreen : ""}Every ${seconds}s: cr-status-exporter status · ${new Date(io.now() * 1000).toISOString().slice(0, 19)}Z\n\n`,
    );
    try {
      await listOnce(flags, io);
    } catch (error) {
      io.stderr(`cr-status-exporter status: ${(error as Error).message}\n`);
    }
  } while (await io.pause(seconds * 1000));
  return 0;
}

async function listOnce(flags: StatusFlags, io: CliIo): Promise<number> {
  const failures: string[] = [];
  const items = flags.server
    ? await itemsFromServer(flags)
    : await itemsFromCluster(flags, io.now(), failures);
  for (const failure of failures) io.stderr(`warning: ${failure}\n`);
  if (items.length === 0 && (flags.output === "table" || flags.output === "wide"))
    io.stderr("No objects found.\n");
  else io.stdout(formatItems(items, flags.output));
  if (failures.length > 0) return 2;
  return flags.failIfNotReady && items.some((i) => i.notReady) ? 1 : 0;
}
