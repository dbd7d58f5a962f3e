// The `warningEvents` section: counting Kubernetes Warning events about the
// watched objects (src/collectors/warning-events.ts). Per kind by default
// (cr_warning_events_total); per object with the opt-in family
// cr_object_warning_events_total (metrics.optIn), like every other family.
import { type OptionValues, section, tableDefaults, toggle, whole } from "./option.ts";

const warningEventsTable = {
  enabled: toggle(
    "enabled",
    "Watch events.k8s.io Events of type Warning about objects of the watched kinds: cr_warning_events_total, and each object's latest warning on the status page, the API and the CLI. Needs list and watch on events.k8s.io events.",
    true,
  ),
  maxReasons: whole(
    "maxReasons",
    'Distinct reason label values per kind in cr_warning_events_total and cr_object_warning_events_total; later reasons become "other".',
    1,
    10,
  ),
};

export type WarningEventsConfig = OptionValues<typeof warningEventsTable>;

export const warningEventsSection = section({
  key: "warningEvents",
  doc: "Kubernetes Warning events about the watched objects, counted from the exporter's start (docs/metrics.md#warning-events).",
  table: warningEventsTable,
  default: tableDefaults(warningEventsTable),
  finish: (_c, _path, values) => values,
});
