#!/usr/bin/env bash
# Builds Prometheus 3 (cmd/prometheus and cmd/promtool) for the end-to-end
# tests from the Go module proxy (see gobuild/go.mod; Prometheus 3.N is the Go
# module version v0.3NN.x) into a cache outside the repository:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/cr-status-exporter/prometheus-<version>/{prometheus,promtool}
# A stamp of go.mod + go.sum makes re-runs a no-op until the pinned versions
# change. The web UI's assets are not built (the tests use the HTTP API only).
# Prints the directory holding both binaries on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../lib/go-cache.sh"
go_peer_paths "$here/gobuild" github.com/prometheus/prometheus prometheus

if ! go_cache_begin "$dest" "$want" \
  "build-prometheus3: Go is not installed; install Go >= 1.25 or set PROMETHEUS3_DIR to a directory with Prometheus 3's prometheus and promtool" \
  prometheus promtool; then
  cd "$mod"
  start=$(date +%s)
  echo "build-prometheus3: building prometheus and promtool $version into $dest (a cold build takes about 8 minutes on 2 cores)" >&2
  go mod download >&2
  for cmd in prometheus promtool; do
    go build -ldflags "-s -w" -o "$dest/$cmd.tmp" "github.com/prometheus/prometheus/cmd/$cmd" >&2
    mv "$dest/$cmd.tmp" "$dest/$cmd"
  done
  go_cache_done "$dest" "$want"
  echo "build-prometheus3: done in $(($(date +%s) - start))s" >&2
fi
echo "$dest"
