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

if go_cache_begin "$dest" "$want" \
  "build-jaeger: Go is not installed; install Go >= 1.25 or set JAEGER_BINARY to a jaeger ($version) binary" jaeger; then
  echo "$dest/jaeger"
  exit 0
fi
go_peer_build build-jaeger jaeger github.com/jaegertracing/jaeger/cmd/jaeger "a cold build takes about 10 minutes on 2 cores"
