// The collector of configuration problems: each check names the path, the
// value and what was expected, and returns undefined instead of throwing, so
// every problem of a file is reported at once.
export type Raw = Record<string, unknown>;

function show(value: unknown): string {
  // JSON has no NaN or Infinity (it would print them as null).
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  const text = JSON.stringify(value);
  if (text === undefined) return String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Counts and caps: anything larger is a typo (or `1e300`), and int32 is what Kubernetes itself uses for counts. */
const maxInteger = 2_147_483_647;
/**
 * Durations end up as timer delays, and Node.js runs a timer longer than
 * 2^31−1 ms (24.8 days) after 1 ms instead: a longer duration would mean
 * "now", so it is refused. NaN and .inf fail the range check too.
 */
const maxDurationSeconds = 2_147_483;

export class Checker {
  static readonly maxInteger = maxInteger;
  static readonly maxDurationSeconds = maxDurationSeconds;
  /** A duration as text: a number and its unit. */
  static readonly durationPattern = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;
  readonly problems: string[] = [];

  fail(path: string, expected: string, value: unknown): undefined {
    this.problems.push(`${path}: expected ${expected}, got ${show(value)}`);
    return undefined;
  }

  object(path: string, value: unknown, allowed: readonly string[]): Raw | undefined {
    if (typeof value !== "object" || value === null || Array.isArray(value))
      return this.fail(path, "a mapping", value);
    for (const key of Object.keys(value)) {
      if (!allowed.includes(key)) {
        this.problems.push(`${path ? `${path}.` : ""}${key}: unknown key (allowed: ${allowed.join(", ")})`);
      }
    }
    return value as Raw;
  }

  string(path: string, value: unknown, pattern?: RegExp, what = "a string"): string | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== "string" || value.length === 0) return this.fail(path, `a non-empty string`, value);
    if (pattern && !pattern.test(value)) return this.fail(path, what, value);
    return value;
  }

  boolean(path: string, value: unknown): boolean | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== "boolean") return this.fail(path, "true or false", value);
    return value;
  }

  integer(path: string, value: unknown, min: number, max = maxInteger): number | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== "number" || !Number.isInteger(value) || value < min) {
      return this.fail(path, `an integer ≥ ${min}`, value);
    }
    if (value > max) return this.fail(path, `an integer ≤ ${max}`, value);
    return value;
  }

  stringList(path: string, value: unknown): string[] | undefined {
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) return this.fail(path, "a list of strings", value);
    const out: string[] = [];
    value.forEach((item, i) => {
      const s = this.string(`${path}[${i}]`, item);
      if (s !== undefined) out.push(s);
    });
    return out;
  }

  duration(path: string, value: unknown): number | undefined {
    if (value === undefined) return undefined;
    let seconds: number | undefined;
    if (typeof value === "number") seconds = value;
    else if (typeof value === "string") {
      const match = Checker.durationPattern.exec(value);
      if (match) {
        const factor = { ms: 0.001, s: 1, m: 60, h: 3600 }[match[2] as "ms" | "s" | "m" | "h"];
        seconds = Number(match[1]) * factor;
      }
    }
    if (seconds !== undefined && seconds >= 0 && seconds <= maxDurationSeconds) return seconds;
    return this.fail(
      path,
      `a duration like "90s", "5m" or a number of seconds, from 0 to ${maxDurationSeconds} (24.8 days)`,
      value,
    );
  }

  oneOf<T extends string>(path: string, value: unknown, choices: readonly T[]): T | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== "string" || !choices.includes(value as T))
      return this.fail(path, `one of ${choices.join(", ")}`, value);
    return value as T;
  }
}
