#!/usr/bin/env bash
# Builds the tools the deploy tests render and check the manifests with, from
# the Go module proxy (wrapper modules in gobuild/), into a cache outside the
# repository:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/cr-status-exporter/tools/<tool>-<version>/<tool>
# and downloads the prometheus-operator module, whose CRD YAML the tests install.
# A stamp holding the sha256 of the wrapper's go.mod + go.sum makes re-runs a
# no-op until a pinned version changes. Prints one line per tool on stdout:
#   kustomize=<path>  helm=<path>  prometheus-operator=<module directory>
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../lib/go-cache.sh"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/cr-status-exporter/tools"

if ! command -v go >/dev/null 2>&1; then
  echo "build-tools: Go is not installed; install Go >= 1.26 to build kustomize and helm" >&2
  exit 1
fi
go_build_env

# pinned <wrapper dir> <module path>: the version the wrapper's go.mod requires.
pinned() {
  awk -v m="$2" '($1 == m || $1 == "require" && $2 == m) { print ($1 == m ? $2 : $3); exit }' "$1/go.mod"
}

# build <tool> <main package> <module> [ldflags]
build() {
  local tool=$1 package=$2 module=$3 ldflags=${4:-}
  local mod="$here/gobuild/$tool"
  local version
  version=$(pinned "$mod" "$module")
  local dest="$cache/$tool-$version"
  local want
  want=$(go_cache_want "$mod")
  if go_cache_fresh "$dest" "$want" "$tool"; then
    echo "$tool=$dest/$tool"
    return
  fi
  go_cache_lock "$dest"
  if ! go_cache_fresh "$dest" "$want" "$tool"; then
    local start
    start=$(date +%s)
    echo "build-tools: building $tool $version into $dest (a few minutes on 2 cores)" >&2
    (cd "$mod" && go mod download >&2 &&
      go build -ldflags "-s -w ${ldflags//@VERSION@/$version}" -o "$dest/$tool.tmp" "$package" >&2)
    mv "$dest/$tool.tmp" "$dest/$tool"
    echo "build-tools: $tool built in $(($(date +%s) - start))s" >&2
  fi
  go_cache_done "$dest" "$want"
  echo "$tool=$dest/$tool"
}

build kustomize sigs.k8s.io/kustomize/kustomize/v5 sigs.k8s.io/kustomize/kustomize/v5 \
  "-X sigs.k8s.io/kustomize/api/provenance.version=@VERSION@"
build helm helm.sh/helm/v3/cmd/helm helm.sh/helm/v3 \
  "-X helm.sh/helm/v3/internal/version.version=@VERSION@"

# The prometheus-operator module is only downloaded (into the module cache,
# verified against gobuild/prometheus-operator/go.sum); nothing is built.
po="$here/gobuild/prometheus-operator"
dir=$(cd "$po" && go mod download -json github.com/prometheus-operator/prometheus-operator |
  awk -F'"' '$2 == "Dir" { print $4 }')
if [[ -z "$dir" || ! -d "$dir/example/prometheus-operator-crd" ]]; then
  echo "build-tools: the prometheus-operator module has no example/prometheus-operator-crd directory ($dir)" >&2
  exit 1
fi
echo "prometheus-operator=$dir"
