#!/bin/sh
# Runs before `npm start` and `npm test`: installs the locked dependencies
# (Node 24 among them, so npm scripts run on it) when they are missing or
# older than package-lock.json. A no-op otherwise.
set -e
cd "$(dirname "$0")/.."
if [ ! -x node_modules/.bin/node ] || [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "installing dependencies (npm ci)..." >&2
  npm ci --no-audit --no-fund >&2
fi
