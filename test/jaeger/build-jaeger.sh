#!/usr/bin/env bash
# Builds Jaeger (cmd/jaeger) for the end-to-end tracing tests from the Go module
# proxy (see gobuild/go.mod) into a cache outside the repository:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/cr-status-exporter/jaeger-<version>/jaeger
# A stamp file holding the sha256 of go.mod + go.sum makes re-runs a no-op until
# the pinned versions change. Prints the path of the binary on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mod="$here/gobuild"
version=$(awk '$1 == "github.com/jaegertracing/jaeger" && $2 ~ /^v/ {print $2; exit}' "$mod/go.mod")
dest="${XDG_CACHE_HOME:-$HOME/.cache}/cr-status-exporter/jaeger-$version"
binary="$dest/jaeger"
stamp="$dest/.stamp"
want=$(cat "$mod/go.mod" "$mod/go.sum" | sha256sum | cut -d' ' -f1)

if [[ -x "$binary" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  echo "$binary"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  echo "build-jaeger: Go is not installed; install Go >= 1.25 or set JAEGER_BINARY to a jaeger ($version) binary" >&2
  exit 1
fi

export GOTOOLCHAIN=local GOWORK=off CGO_ENABLED=0 GOFLAGS=-trimpath
mkdir -p "$dest"
# One build at a time: a second caller waits, then finds the stamp and returns.
exec 9>"$dest/.build.lock"
flock 9
if [[ -x "$binary" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  echo "$binary"
  exit 0
fi
cd "$mod"
start=$(date +%s)
echo "build-jaeger: building jaeger $version into $dest (a cold build takes 10-25 minutes on 2 cores)" >&2
go mod download >&2
go build -ldflags "-s -w" -o "$binary.tmp" github.com/jaegertracing/jaeger/cmd/jaeger >&2
mv "$binary.tmp" "$binary"
echo "$want" > "$stamp"
echo "build-jaeger: done in $(($(date +%s) - start))s" >&2
echo "$binary"
