// Configuration problems as validateConfig reports them.
import { ConfigError, validateConfig } from "../../src/config/validate.ts";

/** The problems validateConfig names for `input` (none: valid). */
export function problems(input: unknown): string[] {
  try {
    validateConfig(input);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}
