#!/usr/bin/env bash
# Builds kubectl, the real client-go client that drives the API proxy in the
# end-to-end tests, from the Go module proxy (see gobuild/go.mod) into a cache
# outside the repository:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/cr-status-exporter/tools/kubectl-<version>/kubectl
# It pins the same Kubernetes version as the test control plane, so after that
# build most packages come from the Go build cache. A stamp of go.mod + go.sum
# makes re-runs a no-op until the pinned version changes. Prints the path of
# the binary on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../lib/go-cache.sh"
mod="$here/gobuild"
kube_version=$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v/ {print $2; exit}' "$mod/go.mod")
minor=$(echo "$kube_version" | cut -d. -f2)
dest="${XDG_CACHE_HOME:-$HOME/.cache}/cr-status-exporter/tools/kubectl-$kube_version"
want=$(go_cache_want "$mod")

no_go="build-kubectl: Go is not installed; install Go >= 1.26 or set KUBECTL_BINARY to a kubectl ($kube_version) binary"
if go_cache_begin "$dest" "$want" "$no_go" kubectl; then
  echo "$dest/kubectl"
  exit 0
fi
cd "$mod"
start=$(date +%s)
echo "build-kubectl: building kubectl $kube_version into $dest (about 1 minute on 2 cores after the control plane's build, 2 to 4 minutes cold)" >&2
go mod download >&2
cb=k8s.io/component-base/version
go build -ldflags "-s -w -X $cb.gitVersion=$kube_version -X $cb.gitMajor=1 -X $cb.gitMinor=$minor \
  -X $cb.gitTreeState=clean -X $cb.buildDate=1970-01-01T00:00:00Z" \
  -o "$dest/kubectl.tmp" k8s.io/kubernetes/cmd/kubectl >&2
mv "$dest/kubectl.tmp" "$dest/kubectl"
go_cache_done "$dest" "$want"
echo "build-kubectl: done in $(($(date +%s) - start))s" >&2
echo "$dest/kubectl"
