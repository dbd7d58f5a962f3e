// HTML built from templates whose every interpolation is escaped unless it is
// already HTML built the same way. There is no other way to put text into the
// page, so a condition message, a reason or a name can only ever be text.

export class Html {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString(): string {
    return this.text;
  }
}

const entities: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text → HTML text, safe in element content and in quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => entities[c] as string);
}

type Part = Html | string | number | undefined | null | false | readonly Part[];

function render(part: Part): string {
  if (part === undefined || part === null || part === false) return "";
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join("");
  return escapeHtml(String(part));
}

/** Tagged template: `html\`<td>${message}</td>\`` escapes `message`. */
export function html(strings: TemplateStringsArray, ...parts: Part[]): Html {
  let out = strings[0] as string;
  for (let i = 0; i < parts.length; i++) out += render(parts[i] as Part) + (strings[i + 1] as string);
  return new Html(out);
}

/** Marks a constant of this program (the page's own CSS and script) as HTML. Never for data. */
export function trustedConstant(text: string): Html {
  return new Html(text);
}
