#!/usr/bin/env bash
# Builds kube-state-metrics (the benchmark peer) from the Go module proxy (see
# gobuild/go.mod) into a cache outside the repository:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/cr-status-exporter/ksm-<version>/kube-state-metrics
# A stamp file holding the sha256 of go.mod + go.sum makes re-runs a no-op until
# the pinned version changes. Prints the path of the binary on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mod="$here/gobuild"
version=$(awk '$1 == "k8s.io/kube-state-metrics/v2" && $2 ~ /^v/ {print $2; exit}' "$mod/go.mod")
dest="${XDG_CACHE_HOME:-$HOME/.cache}/cr-status-exporter/ksm-$version"
binary="$dest/kube-state-metrics"
stamp="$dest/.stamp"
want=$(cat "$mod/go.mod" "$mod/go.sum" | sha256sum | cut -d' ' -f1)

if [[ -x "$binary" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  echo "$binary"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  echo "build-ksm: Go is not installed; install Go >= 1.26 or set KSM_BINARY to a kube-state-metrics ($version) binary" >&2
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
echo "build-ksm: building kube-state-metrics $version into $dest (a cold build takes 4-8 minutes on 2 cores)" >&2
go mod download >&2
pv=github.com/prometheus/common/version
go build -ldflags "-s -w -X $pv.Version=${version#v} -X $pv.Revision=module-proxy -X $pv.Branch=release" \
  -o "$binary.tmp" k8s.io/kube-state-metrics/v2 >&2
mv "$binary.tmp" "$binary"
echo "$want" > "$stamp"
echo "build-ksm: done in $(($(date +%s) - start))s" >&2
echo "$binary"
