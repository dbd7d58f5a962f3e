// KindSettings for tests of the pure core: the defaults (Ready, status
// observedGeneration, no phase table), every object family rendered (or the
// selected ones), with the given fields replaced.
import type { KindSettings } from "../../src/core/change/object-update.ts";
import { defaultReadinessRules } from "../../src/core/judge/readiness.ts";
import { defaultProjectionSettings } from "../../src/core/project/project.ts";
import { newKindRender } from "../../src/core/series/render.ts";

export function kindSettings(
  overrides: Partial<KindSettings> = {},
  extraLabelNames: string[] = [],
  /** Bit mask of the rendered families (slotOf); every one by default. */
  selected = -1,
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
      selected,
      extraLabelNames,
    }),
    ...overrides,
  };
}
