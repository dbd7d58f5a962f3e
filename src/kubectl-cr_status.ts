#!/usr/bin/env node
// `kubectl cr-status …`: kubectl runs an executable named kubectl-cr_status
// found on PATH as its `cr-status` plugin (a dash in the command is an
// underscore in the file name). It is `cr-status-exporter status …`, with
// kubectl's global flags as status takes them (-n, --kubeconfig, --context).
import { runSubcommand } from "./cli/index.ts";

const code = await runSubcommand(["status", ...process.argv.slice(2)]);
process.exitCode = code ?? 2;
