// Where our exporter's resident memory goes, read from the process itself
// without disturbing it: Node's diagnostic report (written on a signal, no
// garbage collection, no scrape) gives the V8 heap by space, committed and
// used, and the memory V8 counts outside its heap (external: Buffers and
// external strings). Read after sync and after churn, beside RSS, it tells
// live data from the runtime's slack (young generation, old-generation
// garbage not yet collected, malloc).
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** Node flags that make `signal` write a report into `dir`. */
export function reportFlags(dir: string, signal = "SIGUSR2"): string[] {
  return [
    "--report-on-signal",
    `--report-signal=${signal}`,
    `--report-directory=${dir}`,
    "--report-exclude-env",
    "--report-exclude-network",
  ];
}

export interface SpaceBytes {
  committed: number;
  used: number;
}

export interface MemoryBreakdown {
  rssBytes: number;
  /** The V8 heap, all spaces. */
  heap: SpaceBytes;
  /** The young generation (semi-spaces). */
  newSpace: SpaceBytes;
  oldSpace: SpaceBytes;
  /** Objects too large for a page (young and old), e.g. long strings and big arrays. */
  largeObjects: SpaceBytes;
  /** Code, trusted and read-only spaces. */
  otherSpaces: SpaceBytes;
  /** Memory V8 is told about outside its heap: Buffers, external strings. */
  externalBytes: number;
  /** What V8 itself allocated with malloc (not the heap). */
  mallocedBytes: number;
  /** RSS by kind of mapping, from /proc/<pid>/smaps right after the report (absent where unreadable). */
  mappings?: MappingBytes;
}

/**
 * Resident memory by kind of mapping: what grows outside the V8 heap under
 * churn (bench/README.md) shows here as glibc's main heap, anonymous memory
 * (V8's pages, the other malloc arenas, thread stacks), JIT code, or files.
 */
export interface MappingBytes {
  /** `[heap]`: glibc's main arena, grown with brk. */
  mallocMainHeap: number;
  /** Anonymous, writable, not executable. */
  anonymous: number;
  /** Anonymous and executable: V8's generated code. */
  code: number;
  /** File-backed: the node binary, libraries. */
  files: number;
  /** The rest: the stack, vdso and the like. */
  other: number;
}

/** `/proc/<pid>/smaps` text summed into MappingBytes (bytes). */
export function mappingBytes(smaps: string): MappingBytes {
  const out: MappingBytes = { mallocMainHeap: 0, anonymous: 0, code: 0, files: 0, other: 0 };
  let kind: keyof MappingBytes = "other";
  for (const line of smaps.split("\n")) {
    const header = /^[0-9a-f]+-[0-9a-f]+ (\S{4}) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) {
      kind = mappingKind(header[1] as string, (header[2] as string).trim());
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB$/.exec(line);
    if (rss) out[kind] += Number(rss[1]) * 1024;
  }
  return out;
}

function mappingKind(permissions: string, path: string): keyof MappingBytes {
  if (path === "[heap]") return "mallocMainHeap";
  if (path.startsWith("[")) return "other";
  if (path !== "") return "files";
  return permissions[2] === "x" ? "code" : "anonymous";
}

function readMappings(pid: number): MappingBytes | undefined {
  try {
    return mappingBytes(readFileSync(`/proc/${pid}/smaps`, "utf8"));
  } catch {
    return undefined;
  }
}

interface Report {
  javascriptHeap: {
    totalCommittedMemory: number;
    usedMemory: number;
    externalMemory: number;
    mallocedMemory: number;
    heapSpaces: Record<string, { committedMemory: number; used: number }>;
  };
  resourceUsage: { rss: number | string };
}

/** A report's memory figures. */
export function breakdown(report: Report): MemoryBreakdown {
  const spaces = report.javascriptHeap.heapSpaces;
  const sum = (names: string[]): SpaceBytes => {
    const out = { committed: 0, used: 0 };
    for (const name of names) {
      out.committed += spaces[name]?.committedMemory ?? 0;
      out.used += spaces[name]?.used ?? 0;
    }
    return out;
  };
  const large = Object.keys(spaces).filter((s) => s.endsWith("large_object_space") && !s.startsWith("code"));
  const named = new Set(["new_space", "old_space", ...large]);
  return {
    rssBytes: Number(report.resourceUsage.rss),
    heap: { committed: report.javascriptHeap.totalCommittedMemory, used: report.javascriptHeap.usedMemory },
    newSpace: sum(["new_space"]),
    oldSpace: sum(["old_space"]),
    largeObjects: sum(large),
    otherSpaces: sum(Object.keys(spaces).filter((s) => !named.has(s))),
    externalBytes: report.javascriptHeap.externalMemory,
    mallocedBytes: report.javascriptHeap.mallocedMemory,
  };
}

/** Signals `pid` and reads the report it writes into `dir` (removed after). */
export async function readMemory(
  pid: number,
  dir: string,
  signal = "SIGUSR2",
  timeoutMs = 30_000,
): Promise<MemoryBreakdown> {
  const reports = () =>
    new Set(readdirSync(dir).filter((f) => f.startsWith("report.") && f.endsWith(".json")));
  const before = reports();
  process.kill(pid, signal);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const fresh = [...reports()].find((f) => !before.has(f));
    if (fresh) {
      const file = join(dir, fresh);
      // The report is written in one go once complete; a half-written one does not parse yet.
      try {
        const memory = breakdown(JSON.parse(readFileSync(file, "utf8")) as Report);
        rmSync(file, { force: true });
        const mappings = readMappings(pid);
        return mappings ? { ...memory, mappings } : memory;
      } catch {
        // still being written
      }
    }
    await sleep(50);
  }
  throw new Error(`process ${pid} wrote no diagnostic report into ${dir} within ${timeoutMs / 1000} s`);
}
