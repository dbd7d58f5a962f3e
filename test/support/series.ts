// An object's stored series as /metrics writes them: the stored tails behind
// each family's full name and the object's labels (slotText, the writer's own
// join), so a test reads whole exposition lines.
import { objectFamilies } from "../../src/core/series/catalog.ts";
import { type ObjectSeries, slotTails, slotText } from "../../src/core/series/render.ts";

/** The lines of one family slot; family names carry `prefix`. */
export function slotLines(series: ObjectSeries | undefined, slot: number, prefix = "cr_"): string {
  const family = objectFamilies.find((f) => f.slot === slot);
  if (!series || !family) return "";
  return slotText(prefix + family.suffix, series.open, slotTails(series, slot));
}

/** Every slot's lines, in slot order. */
export function allLines(series: ObjectSeries | undefined, prefix = "cr_"): string[] {
  return objectFamilies.map((f) => slotLines(series, f.slot, prefix));
}
