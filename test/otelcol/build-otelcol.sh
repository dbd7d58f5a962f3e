#!/usr/bin/env bash
# Builds the OpenTelemetry Collector of the OTLP metrics end-to-end test
# (gobuild/main.go, core modules only) from the Go module proxy into a cache
# outside the repository:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/cr-status-exporter/otelcol-<version>/otelcol
# A stamp of go.mod + go.sum (main.go is hashed with them) makes re-runs a
# no-op until the pinned versions or the source change. Prints the path of
# the binary on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../lib/go-cache.sh"
go_peer_paths "$here/gobuild" go.opentelemetry.io/collector/otelcol otelcol
want=$(cat "$mod/go.mod" "$mod/go.sum" "$mod/main.go" | sha256sum | cut -d' ' -f1)

if go_cache_begin "$dest" "$want" \
  "build-otelcol: Go is not installed; install Go >= 1.26 or set OTELCOL_BINARY to a collector ($version) with the otlp receiver and the otlphttp exporter" \
  otelcol; then
  echo "$dest/otelcol"
  exit 0
fi
go_peer_build build-otelcol otelcol . "a cold build takes about 5 minutes on 2 cores"
