// The unit the composition root is made of: a part with a start, a stop that
// undoes it, and a reload that applies a new configuration or says what
// needs a restart. The app starts its components in order and stops them in
// the reverse order; a failed start stops what had already started.
import type { Config } from "../config/schema.ts";

export interface Component {
  readonly name: string;
  start(): Promise<void>;
  /** Applies `next` (the running configuration was `previous`). */
  reload(next: Config, previous: Config): Promise<void>;
  stop(): Promise<void>;
}

/** Starts each component in order; if one fails, stops those started (newest first) and rethrows. */
export async function startInOrder(components: readonly Component[]): Promise<void> {
  const started: Component[] = [];
  try {
    for (const component of components) {
      await component.start();
      started.push(component);
    }
  } catch (error) {
    await stopInReverse(started);
    throw error;
  }
}

/** Stops each component, newest first; a failing stop does not keep the others running. */
export async function stopInReverse(components: readonly Component[]): Promise<void> {
  const errors: unknown[] = [];
  for (const component of [...components].reverse()) {
    try {
      await component.stop();
    } catch (error) {
      errors.push(new Error(`stopping ${component.name}: ${String(error)}`, { cause: error }));
    }
  }
  if (errors.length === 0) return;
  throw errors.length === 1 ? errors[0] : new AggregateError(errors, "stopping the exporter");
}

/** True when the part of the configuration `pick` selects differs. */
export function changed(next: Config, previous: Config, pick: (config: Config) => unknown): boolean {
  return JSON.stringify(pick(next)) !== JSON.stringify(pick(previous));
}
