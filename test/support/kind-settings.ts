// KindSettings for tests of the pure core: the defaults (Ready, status
// observedGeneration, no phase table), every object family rendered, with
// the given fields replaced.
import type { KindSettings } from "../../src/core/object-update.ts";
import { defaultProjectionSettings } from "../../src/core/project.ts";
import { defaultReadinessRules } from "../../src/core/readiness.ts";
import { newKindRender } from "../../src/core/render.ts";

export function kindSettings(
  overrides: Partial<KindSettings> = {},
  extraLabelNames: string[] = [],
): KindSettings {
  return {
    projection: defaultProjectionSettings,
    readiness: defaultReadinessRules,
    generationSource: "status",
    phaseTransitions: undefined,
    render: newKindRender({
      group: "example.com",
      kind: "Widget",
      prefix: "cr_",
      selected: -1,
      extraLabelNames,
    }),
    ...overrides,
  };
}
