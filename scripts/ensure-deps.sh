#!/bin/sh
# Runs before `npm start` and `npm test`: installs the locked dependencies
# (Node 24 among them, so npm scripts run on it) when they are missing or
# older than package-lock.json. A no-op otherwise.
set -e
cd "$(dirname "$0")/.."
# node_modules linked from another checkout (a git worktree) belongs to that
# checkout: `npm ci` here would empty it under the other one, so only warn.
if [ -L node_modules ]; then
  if [ package-lock.json -nt node_modules/.package-lock.json ]; then
    echo "node_modules is a link to another checkout's; not installing (run npm ci there if package-lock.json changed)" >&2
  fi
  exit 0
fi
if [ ! -x node_modules/.bin/node ] || [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "installing dependencies (npm ci)..." >&2
  npm ci --no-audit --no-fund >&2
fi
