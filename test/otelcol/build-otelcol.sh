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

if go_cache_fresh "$dest" "$want" otelcol; then
  echo "$dest/otelcol"
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  echo "build-otelcol: Go is not installed; install Go >= 1.26 or set OTELCOL_BINARY to a collector ($version) with the otlp receiver and the otlphttp exporter" >&2
  exit 1
fi
go_build_env
go_cache_lock "$dest"
if go_cache_fresh "$dest" "$want" otelcol; then
  echo "$dest/otelcol"
  exit 0
fi
cd "$mod"
start=$(date +%s)
echo "build-otelcol: building otelcol $version into $dest (a cold build takes about 5 minutes on 2 cores)" >&2
go mod download >&2
go build -ldflags "-s -w" -o "$dest/otelcol.tmp" . >&2
mv "$dest/otelcol.tmp" "$dest/otelcol"
go_cache_done "$dest" "$want"
echo "build-otelcol: done in $(($(date +%s) - start))s" >&2
echo "$dest/otelcol"
