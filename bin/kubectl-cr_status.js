#!/usr/bin/env node
// The package's `kubectl-cr_status` command. Installed from npm it runs dist/, the
// JavaScript built at pack time (Node.js does not strip TypeScript types under
// node_modules); in a clone, where there is no dist/, the sources in src/.
import { existsSync } from "node:fs";

const built = new URL("../dist/kubectl-cr_status.js", import.meta.url);
await import(existsSync(built) ? built.href : new URL("../src/kubectl-cr_status.ts", import.meta.url).href);
