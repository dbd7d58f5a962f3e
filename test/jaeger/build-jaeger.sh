#!/usr/bin/env bash
# Builds Jaeger (cmd/jaeger) for the end-to-end tracing tests from the Go module
# proxy (see gobuild/go.mod) into a cache outside the repository:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/cr-status-exporter/jaeger-<version>/jaeger
# A stamp of go.mod + go.sum makes re-runs a no-op until the pinned versions
# change. Prints the path of the binary on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../lib/go-cache.sh"
go_peer_paths "$here/gobuild" github.com/jaegertracing/jaeger jaeger

if go_cache_fresh "$dest" "$want" jaeger; then
  echo "$dest/jaeger"
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  echo "build-jaeger: Go is not installed; install Go >= 1.25 or set JAEGER_BINARY to a jaeger ($version) binary" >&2
  exit 1
fi
go_build_env
go_cache_lock "$dest"
if go_cache_fresh "$dest" "$want" jaeger; then
  echo "$dest/jaeger"
  exit 0
fi
cd "$mod"
start=$(date +%s)
echo "build-jaeger: building jaeger $version into $dest (a cold build takes about 10 minutes on 2 cores)" >&2
go mod download >&2
go build -ldflags "-s -w" -o "$dest/jaeger.tmp" github.com/jaegertracing/jaeger/cmd/jaeger >&2
mv "$dest/jaeger.tmp" "$dest/jaeger"
go_cache_done "$dest" "$want"
echo "build-jaeger: done in $(($(date +%s) - start))s" >&2
echo "$dest/jaeger"
