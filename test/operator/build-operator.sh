#!/usr/bin/env bash
# Builds the test operator (gobuild/main.go, controller-runtime) for the API
# proxy's end-to-end test from the Go module proxy into a cache outside the
# repository:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/cr-status-exporter/tools/widget-operator-<stamp>/widget-operator
# It uses the same client-go as the kubectl and control-plane builds, so most
# packages come from the Go build cache. The stamp (of go.mod, go.sum and
# main.go) names the directory, so checkouts with different sources never
# replace each other's binary, and re-runs are a no-op. Prints the binary's path.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../lib/go-cache.sh"
mod="$here/gobuild"
want=$(cat "$mod/go.mod" "$mod/go.sum" "$mod/main.go" | sha256sum | cut -d' ' -f1)
dest="${XDG_CACHE_HOME:-$HOME/.cache}/cr-status-exporter/tools/widget-operator-${want:0:12}"

no_go="build-operator: Go is not installed; install Go >= 1.26 or set WIDGET_OPERATOR_BINARY to a build of $mod"
if go_cache_begin "$dest" "$want" "$no_go" widget-operator; then
  echo "$dest/widget-operator"
  exit 0
fi
cd "$mod"
start=$(date +%s)
echo "build-operator: building the test operator into $dest (about 10 seconds after the kubectl build, 2 to 4 minutes cold on 2 cores)" >&2
go mod download >&2
go build -ldflags "-s -w" -o "$dest/widget-operator.tmp" . >&2
mv "$dest/widget-operator.tmp" "$dest/widget-operator"
go_cache_done "$dest" "$want"
echo "build-operator: done in $(($(date +%s) - start))s" >&2
echo "$dest/widget-operator"
