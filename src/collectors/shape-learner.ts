// Detection that learns from objects, for one CRD version: the decision from
// its schema, decided again as the collector hands over the first objects
// (bounded: core/detect/learn.ts), for what the schema leaves open — the whole
// status when it preserves unknown fields, the condition types when it
// declares no enum, phase values without an enum. Owned by the collector
// manager, so what was learned survives a collector's restart.

import { shapeInfoLabels } from "../core/detect/describe.ts";
import { addSample, decideWithSamples, noSamples, type Samples } from "../core/detect/learn.ts";
import type { VersionDetection } from "../core/detect/schema.ts";
import { type DetectedShape, dotted } from "../core/detect/shape.ts";
import type { ObjectSampler } from "./collector-settings.ts";

/** The decision in words, without how far learning got: two shapes that read the same are the same decision. */
export function decisionOf(shape: DetectedShape): string {
  const { basis: _basis, ...labels } = shapeInfoLabels(shape);
  return JSON.stringify({ ...labels, others: shape.conditions?.others.map(dotted) ?? [] });
}

export class ShapeLearner implements ObjectSampler {
  readonly detection: VersionDetection;
  /** The schema's evidence as text: a CRD update that changes it needs a new learner. */
  readonly schemaKey: string;
  readonly #changed: (previous: DetectedShape, next: DetectedShape) => void;
  #samples: Samples = noSamples;
  #shape: DetectedShape;

  /** `changed` hears every change of the decision (not of how far learning got). */
  constructor(detection: VersionDetection, changed: (previous: DetectedShape, next: DetectedShape) => void) {
    this.detection = detection;
    this.schemaKey = JSON.stringify(detection);
    this.#changed = changed;
    this.#shape = decideWithSamples(detection, noSamples);
  }

  get shape(): DetectedShape {
    return this.#shape;
  }

  /** Objects seen so far (at most the learning bound). */
  get samples(): number {
    return this.#samples.seen;
  }

  sample(raw: unknown): boolean {
    if (!this.#shape.learning) return false;
    const samples = addSample(this.#samples, raw);
    if (samples === this.#samples) return this.#shape.learning;
    this.#samples = samples;
    const previous = this.#shape;
    this.#shape = decideWithSamples(this.detection, samples);
    if (decisionOf(previous) !== decisionOf(this.#shape)) this.#changed(previous, this.#shape);
    return this.#shape.learning;
  }
}
