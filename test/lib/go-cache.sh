# Shared by the scripts that build Go test peers into caches outside the
# repository (test/cluster, test/jaeger, test/deploy). Source it; it defines:
#   go_cache_want <module dir>          the stamp: sha256 of the wrapper's go.mod + go.sum
#   go_cache_fresh <dest> <want> <bin>… true when every binary exists and the stamp matches
#   go_cache_lock <dest>                take the build lock (fd 9): one build at a time,
#                                       a second caller waits, then finds the stamp fresh
#   go_cache_done <dest> <want>         write the stamp
#   go_build_env                        the build settings every peer uses
#   go_cache_begin <dest> <want> <no-go message> <bin>…
#                                       true when fresh; else checks for Go (failing with
#                                       the message), sets the build env and takes the
#                                       lock, then true when another build finished meanwhile
#   go_peer_paths <module dir> <module path> <cache name>
#                                       mod, version, dest and want of a wrapper module's peer
#   go_peer_build <script> <binary> <package> <cold note>
#                                       after go_cache_begin said stale: builds <package> of $mod
#                                       into $dest/<binary>, writes the stamp, prints the path

go_cache_want() {
  cat "$1/go.mod" "$1/go.sum" | sha256sum | cut -d' ' -f1
}

go_cache_fresh() {
  local dest=$1 want=$2
  shift 2
  [[ -f "$dest/.stamp" && "$(cat "$dest/.stamp")" == "$want" ]] || return 1
  local bin
  for bin in "$@"; do [[ -x "$dest/$bin" ]] || return 1; done
}

go_cache_lock() {
  mkdir -p "$1"
  exec 9>"$1/.build.lock"
  flock 9
}

go_cache_done() {
  echo "$2" >"$1/.stamp"
  exec 9>&-
}

go_build_env() {
  export GOTOOLCHAIN=local GOWORK=off CGO_ENABLED=0 GOFLAGS=-trimpath
}

go_cache_begin() {
  local dest=$1 want=$2 no_go=$3
  shift 3
  go_cache_fresh "$dest" "$want" "$@" && return 0
  if ! command -v go >/dev/null 2>&1; then
    echo "$no_go" >&2
    exit 1
  fi
  go_build_env
  go_cache_lock "$dest"
  go_cache_fresh "$dest" "$want" "$@"
}

# go_peer_paths <wrapper module dir> <module path> <cache name>
# Sets mod, version (the module's version in the wrapper's go.mod), dest (the
# cache directory <cache name>-<version>) and want (the stamp).
go_peer_paths() {
  mod=$1
  version=$(awk -v m="$2" '$1 == m && $2 ~ /^v/ {print $2; exit}' "$mod/go.mod")
  dest="${XDG_CACHE_HOME:-$HOME/.cache}/cr-status-exporter/$3-$version"
  want=$(go_cache_want "$mod")
}

go_peer_build() {
  local script=$1 binary=$2 package=$3 cold=$4 start
  start=$(date +%s)
  echo "$script: building $binary $version into $dest ($cold)" >&2
  (cd "$mod" && go mod download >&2 && go build -ldflags "-s -w" -o "$dest/$binary.tmp" "$package" >&2)
  mv "$dest/$binary.tmp" "$dest/$binary"
  go_cache_done "$dest" "$want"
  echo "$script: done in $(($(date +%s) - start))s" >&2
  echo "$dest/$binary"
}
