#!/usr/bin/env bash
# Builds kube-state-metrics (the benchmark peer) from the Go module proxy (see
# gobuild/go.mod) into a cache outside the repository:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/cr-status-exporter/ksm-<version>/kube-state-metrics
# A stamp of go.mod + go.sum makes re-runs a no-op until the pinned version
# changes. Prints the path of the binary on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../../test/lib/go-cache.sh"
go_peer_paths "$here/gobuild" k8s.io/kube-state-metrics/v2 ksm

if go_cache_fresh "$dest" "$want" kube-state-metrics; then
  echo "$dest/kube-state-metrics"
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  echo "build-ksm: Go is not installed; install Go >= 1.26 or set KSM_BINARY to a kube-state-metrics ($version) binary" >&2
  exit 1
fi
go_build_env
go_cache_lock "$dest"
if go_cache_fresh "$dest" "$want" kube-state-metrics; then
  echo "$dest/kube-state-metrics"
  exit 0
fi
cd "$mod"
start=$(date +%s)
echo "build-ksm: building kube-state-metrics $version into $dest (a cold build takes about 4 minutes on 2 cores)" >&2
go mod download >&2
pv=github.com/prometheus/common/version
go build -ldflags "-s -w -X $pv.Version=${version#v} -X $pv.Revision=module-proxy -X $pv.Branch=release" \
  -o "$dest/kube-state-metrics.tmp" k8s.io/kube-state-metrics/v2 >&2
mv "$dest/kube-state-metrics.tmp" "$dest/kube-state-metrics"
go_cache_done "$dest" "$want"
echo "build-ksm: done in $(($(date +%s) - start))s" >&2
echo "$dest/kube-state-metrics"
