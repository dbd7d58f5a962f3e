#!/usr/bin/env bash
# Downloads the modules pinned in modules/go.mod (the projects whose CRD YAML
# the real-CRD tests install) into the Go module cache, verified against
# modules/go.sum. Nothing is built and nothing is written into the repository;
# with the modules already in the cache it is a no-op that needs no network.
# Prints one line per module on stdout:
#   <module path> <version served> <module directory>
# and fails when the module cache serves another version than the one pinned.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../lib/go-cache.sh"
mod="$here/modules"

if ! command -v go >/dev/null 2>&1; then
  echo "real-crds: Go is not installed; install Go >= 1.26 to fetch the CRDs of other projects from their modules" >&2
  exit 1
fi
go_build_env

# The require block of go.mod: "<path> <version>" per line.
pinned=$(awk '$1 == "require" && $2 == "(" { inside = 1; next }
  inside && $1 == ")" { inside = 0 }
  inside && $1 !~ /^\/\// { print $1, $2 }' "$mod/go.mod")
if [[ -z "$pinned" ]]; then
  echo "real-crds: $mod/go.mod requires no modules" >&2
  exit 1
fi

# go mod download adds the hashes of a module that go.sum lacks (checked
# against the checksum database) instead of failing; a run must not change
# the committed go.sum, so a version pinned without its hashes fails below.
sum_before=$(sha256sum "$mod/go.sum")

# go mod download -json prints one JSON object per module; the fields are on
# lines of their own ("Path": "…", "Version": "…", "Dir": "…", "Error": "…").
served=$(cd "$mod" && go mod download -json $(cut -d' ' -f1 <<<"$pinned") |
  awk -F'"' '$2 == "Path" { path = $4 } $2 == "Version" { version = $4 }
    $2 == "Error" { print "ERROR", path, $4 }
    $2 == "Dir" { print path, version, $4 }')
status=0
while read -r path version; do
  line=$(awk -v p="$path" '$1 == p' <<<"$served")
  if [[ -z "$line" || "$line" == ERROR* ]]; then
    echo "real-crds: $path $version was not downloaded: ${line:-no answer from go mod download}" >&2
    status=1
  elif [[ "$(cut -d' ' -f2 <<<"$line")" != "$version" ]]; then
    echo "real-crds: $path is pinned at $version but the module graph selected $(cut -d' ' -f2 <<<"$line")" >&2
    status=1
  else
    echo "$line"
  fi
done <<<"$pinned"
if [[ "$(sha256sum "$mod/go.sum")" != "$sum_before" ]]; then
  echo "real-crds: $mod/go.sum lacked the hashes of a pinned module and was updated; review and commit it" >&2
  status=1
fi
exit $status
