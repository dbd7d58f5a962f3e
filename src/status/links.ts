// Per-object links to a Grafana dashboard and to a trace, from URL templates
// in the configuration. Placeholders are replaced by URL-encoded values, so an
// object name can never change the shape of the URL.
import type { ObjectView } from "./view.ts";

export const linkPlaceholders = ["group", "version", "kind", "namespace", "name", "uid", "traceId"] as const;
type Placeholder = (typeof linkPlaceholders)[number];

export interface LinkTemplates {
  /** e.g. https://grafana.example.com/d/cr-status-object?var-namespace={namespace}&var-kind={kind}&var-name={name} */
  dashboardUrl: string | undefined;
  /** e.g. https://jaeger.example.com/trace/{traceId} */
  traceUrl: string | undefined;
}

export interface ObjectLinks {
  dashboard: string | undefined;
  trace: string | undefined;
}

const placeholder = /\{([A-Za-z]+)\}/g;

/** What is wrong with a template, or undefined when it is usable. */
export function templateProblem(template: string): string | undefined {
  if (!/^https?:\/\/[^\s]+$/.test(template)) return "an http(s) URL without spaces";
  for (const match of template.matchAll(placeholder)) {
    if (!linkPlaceholders.includes(match[1] as Placeholder)) {
      return `placeholders among {${linkPlaceholders.join("}, {")}} (found {${match[1]}})`;
    }
  }
  return undefined;
}

/** The template with its placeholders filled; undefined when a placeholder has no value (no trace id yet). */
export function expandTemplate(
  template: string,
  values: Readonly<Record<Placeholder, string | undefined>>,
): string | undefined {
  let missing = false;
  const url = template.replace(placeholder, (whole, name: string) => {
    const value = values[name as Placeholder];
    if (value === undefined) {
      missing = true;
      return whole;
    }
    return encodeURIComponent(value);
  });
  return missing ? undefined : url;
}

export function objectLinks(
  view: Pick<ObjectView, "group" | "version" | "kind" | "namespace" | "name" | "uid" | "traceId">,
  templates: LinkTemplates,
): ObjectLinks {
  const values = {
    group: view.group,
    version: view.version,
    kind: view.kind,
    namespace: view.namespace,
    name: view.name,
    uid: view.uid,
    traceId: view.traceId,
  };
  return {
    dashboard: templates.dashboardUrl ? expandTemplate(templates.dashboardUrl, values) : undefined,
    trace: templates.traceUrl && view.traceId ? expandTemplate(templates.traceUrl, values) : undefined,
  };
}
