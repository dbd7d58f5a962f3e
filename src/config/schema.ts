// The configuration as the rest of the program sees it, after validation and
// defaults: the types of the option tables' values (options.ts,
// resource-options.ts and the sections beside their readers), so a new option
// is declared once, in its table.

import { type OptionValues, tableDefaults } from "./option.ts";
import { configTable } from "./options.ts";

export type { TracingConfig } from "./options.ts";
export type { OtlpMetricsConfig } from "./otlp-metrics.ts";
export type { LabelMapping } from "./resource-fields.ts";
export type { ResourceOptions } from "./resource-options.ts";
export { defaultResourceOptions } from "./resource-options.ts";
export type { StatusPageConfig } from "./status-page.ts";
export type { KindOverride } from "./validate-overrides.ts";
export type { ResourceSelector } from "./validate-resources.ts";
export type { ShardingConfig } from "./validate-sharding.ts";
export type { StateOption } from "./validate-states.ts";
export type { ApiProxyConfig, AuditReceiverConfig } from "./validate-status-writes.ts";
export type { WarningEventsConfig } from "./warning-events.ts";

export type Config = OptionValues<typeof configTable>;

export const defaultConfig: Config = tableDefaults(configTable);
