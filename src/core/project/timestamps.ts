// RFC 3339 timestamps as the Kubernetes API writes them. Every object carries
// several (creation, each condition's lastTransitionTime, managedFields), so
// the API's own form `YYYY-MM-DDTHH:MM:SSZ` is decoded by arithmetic (about
// ten times faster than Date.parse); any other form goes through Date.parse.

const daysBeforeMonth = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
const daysInMonth = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const [dash, colon, upperT, upperZ] = [45, 58, 84, 90];

function digits(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Seconds since the epoch of a `YYYY-MM-DDTHH:MM:SSZ` string, or undefined when it is not exactly that form. */
function parseApiForm(text: string): number | undefined {
  if (text.length !== 20) return undefined;
  if (text.charCodeAt(4) !== dash || text.charCodeAt(7) !== dash || text.charCodeAt(10) !== upperT)
    return undefined;
  if (text.charCodeAt(13) !== colon || text.charCodeAt(16) !== colon || text.charCodeAt(19) !== upperZ)
    return undefined;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  // Any four-digit year: the arithmetic below is the proleptic Gregorian calendar, as Date.parse's.
  if (year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23) return undefined;
  if (minute < 0 || minute > 59 || second < 0 || second > 59) return undefined;
  const leap = isLeap(year) && month > 2 ? 1 : 0;
  const monthDays = month === 2 && isLeap(year) ? 29 : (daysInMonth[month - 1] as number);
  if (day > monthDays) return undefined;
  const y = year - 1;
  const daysBeforeYear =
    365 * (year - 1970) + (Math.floor(y / 4) - Math.floor(y / 100) + Math.floor(y / 400)) - 477;
  const days = daysBeforeYear + (daysBeforeMonth[month - 1] as number) + leap + day - 1;
  return days * 86400 + hour * 3600 + minute * 60 + second;
}

/** RFC 3339 → Unix seconds (the API's precision, fractions dropped), or undefined. */
export function parseTimestamp(value: unknown): number | undefined {
  if (typeof value !== "string") return undefined;
  const fast = parseApiForm(value);
  if (fast !== undefined) return fast;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined;
}
