// The tracing API the rest of the exporter uses.
export type { LeaseElectorOptions, LeaseTransport } from "./leader.ts";
export { LeaseElector } from "./leader.ts";
export type { PlannerSettings } from "./model.ts";
export type { ObjectObservation, TransitionTracer } from "./observation.ts";
export type { TracingOptions } from "./sdk.ts";
export { createTracing, tracingEndpoint } from "./sdk.ts";
export type { StateTracer } from "./tracer.ts";
