#!/usr/bin/env node
// The package's `cr-status-exporter` command. Installed from npm it runs dist/, the
// JavaScript built at pack time (Node.js does not strip TypeScript types under
// node_modules); in a clone, where there is no dist/, the sources in src/.
import { existsSync } from "node:fs";

const built = new URL("../dist/main.js", import.meta.url);
await import(existsSync(built) ? built.href : new URL("../src/main.ts", import.meta.url).href);
