// The image deploy/image/build.sh builds (cached by content hash, so a warm
// call costs about a second), and how to run it with podman on this machine.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repositoryRoot } from "../../scripts/deploy-sync.ts";
import { keyValueLines } from "../deploy/tools.ts";

export interface BuiltImage {
  /** The image in containers-storage, for `podman run`. */
  image: string;
  /** OCI image layout directory and the reference name inside it. */
  oci: string;
  ref: string;
  hash: string;
  summary: ImageSummary;
}

/** One platform's image in the OCI index. */
export interface PlatformImage {
  platform: { architecture: string; os: string; variant?: string };
  manifestDigest: string;
  annotations: Record<string, string>;
  compressedBytes: number;
  layers: { digest: string; compressedBytes: number; createdBy: string }[];
  architecture: string;
  os: string;
}

/** The index, and (at the top level) this machine's platform's image. */
export interface ImageSummary {
  indexDigest: string;
  indexMediaType: string;
  indexAnnotations: Record<string, string>;
  platforms: PlatformImage[];
  manifestDigest: string;
  annotations: Record<string, string>;
  compressedBytes: number;
  layers: { digest: string; compressedBytes: number; createdBy: string }[];
  config: {
    User: string;
    Env: string[];
    Entrypoint: string[];
    Cmd: string[];
    WorkingDir: string;
    ExposedPorts: Record<string, unknown>;
    Labels: Record<string, string>;
  };
}

let cached: BuiltImage | undefined;

export function buildImage(): BuiltImage {
  if (cached) return cached;
  const output = execFileSync("bash", [join(repositoryRoot, "deploy", "image", "build.sh")], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    timeout: 900_000,
  });
  const get = keyValueLines(output, "build.sh");
  cached = {
    image: get("image"),
    oci: get("oci"),
    ref: get("ref"),
    hash: get("hash"),
    summary: JSON.parse(readFileSync(get("summary"), "utf8")) as ImageSummary,
  };
  return cached;
}

/**
 * `podman run` with what this machine needs: runc (its cgroups are a v1/v2
 * hybrid, which crun refuses) and explicit file and process limits (podman's
 * defaults are above the hard limits here, and raising them is not permitted).
 */
export const podmanRun = [
  "--runtime",
  "runc",
  "run",
  "--rm",
  "--ulimit",
  "nofile=4096:4096",
  "--ulimit",
  "nproc=4096:4096",
];

export function podman(args: string[]): string {
  return execFileSync("podman", args, {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 120_000,
  });
}

/** The file of a blob of the image's OCI layout. */
export function blobPath(built: BuiltImage, digest: string): string {
  return join(built.oci, "blobs", ...digest.split(":"));
}

/** Every path in the image's layers (from the OCI layout), without a leading "./" or "/". */
export function imagePaths(built: BuiltImage, layers = built.summary.layers): Set<string> {
  const paths = new Set<string>();
  for (const layer of layers) {
    const blob = blobPath(built, layer.digest);
    const list = execFileSync("tar", ["-tzf", blob], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
    for (const line of list.split("\n")) if (line) paths.add(line.replace(/^\.?\//, "").replace(/\/$/, ""));
  }
  return paths;
}
