// The words detection reads status by, written out here rather than imported
// from src/core, so that a word dropped or misspelt in the code fails a test.

/** Status fields directly under status that only a run-to-completion kind has. */
export const completionTimeNames = [
  "completionTime",
  "completionTimestamp",
  "completedAt",
  "finishedAt",
  "finishTime",
  "stoppedAt",
] as const;

/** Enum values that make a string field directly under status a phase. */
export const lifecycleWords = [
  ...["Pending", "Running", "InProgress", "Succeeded", "Completed", "Complete", "Failed", "Error"],
  ...["Ready", "Available", "Provisioning", "Provisioned", "Deleting", "Terminating", "Healthy", "Degraded"],
] as const;
