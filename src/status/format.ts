// Durations and times as people read them, shared by the page and the CLI:
// short relative durations in the kubectl style ("45s", "5m30s", "3h12m",
// "4d") and absolute UTC times.

/** A whole-second duration, most significant units only. Negative durations read as 0s. */
export function shortDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const m = Math.floor(s / 60);
  const h = Math.floor(s / 3600);
  const d = Math.floor(s / 86400);
  if (s < 120) return `${s}s`;
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (h < 3) return `${m}m`;
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (d < 2) return `${h}h`;
  if (d < 8) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  return `${d}d`;
}

/** `2026-11-30 01:23:45 UTC`. */
export function utcTime(seconds: number): string {
  return `${new Date(seconds * 1000).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}
