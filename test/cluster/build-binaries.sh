#!/usr/bin/env bash
# Builds kube-apiserver and etcd for the test control plane from the Go module
# proxy (see gobuild/go.mod) into the setup-envtest store layout:
#   ${XDG_DATA_HOME:-$HOME/.local/share}/kubebuilder-envtest/k8s/<version>-linux-amd64/
# A stamp of go.mod + go.sum makes re-runs a no-op until the pinned versions
# change. Prints the directory of the binaries on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../lib/go-cache.sh"
mod="$here/gobuild"
kube_version=$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v/ {print $2; exit}' "$mod/go.mod")
minor=$(echo "$kube_version" | cut -d. -f2)
dest="${XDG_DATA_HOME:-$HOME/.local/share}/kubebuilder-envtest/k8s/${kube_version#v}-linux-amd64"
want=$(go_cache_want "$mod")

if go_cache_fresh "$dest" "$want" kube-apiserver etcd; then
  echo "$dest"
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  echo "build-binaries: Go is not installed; install Go >= 1.26 or set KUBEBUILDER_ASSETS to a directory holding kube-apiserver and etcd" >&2
  exit 1
fi
go_build_env
go_cache_lock "$dest"
if go_cache_fresh "$dest" "$want" kube-apiserver etcd; then
  echo "$dest"
  exit 0
fi
cd "$mod"
start=$(date +%s)
echo "build-binaries: building kube-apiserver $kube_version and etcd into $dest (cold builds take about 9 minutes on 2 cores)" >&2
go mod download >&2
cb=k8s.io/component-base/version
go build -ldflags "-s -w -X $cb.gitVersion=$kube_version -X $cb.gitMajor=1 -X $cb.gitMinor=$minor \
  -X $cb.gitTreeState=clean -X $cb.buildDate=1970-01-01T00:00:00Z" \
  -o "$dest/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver >&2
echo "build-binaries: kube-apiserver built after $(($(date +%s) - start))s" >&2
go build -ldflags "-s -w" -o "$dest/etcd.tmp" go.etcd.io/etcd/server/v3 >&2
mv "$dest/kube-apiserver.tmp" "$dest/kube-apiserver"
mv "$dest/etcd.tmp" "$dest/etcd"
go_cache_done "$dest" "$want"
echo "build-binaries: done in $(($(date +%s) - start))s" >&2
"$dest/kube-apiserver" --version >&2
"$dest/etcd" --version | head -n 1 >&2
echo "$dest"
