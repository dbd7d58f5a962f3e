// Why a status write failed, from its HTTP code and the Kubernetes Status
// body the apiserver sent with it (pure: no I/O).

export const failureReasons = [
  "Conflict",
  "Invalid",
  "Forbidden",
  "NotFound",
  "TooManyRequests",
  "Timeout",
  "WebhookDenied",
  "TooLarge",
  "ServerError",
  "Other",
] as const;

export type FailureReason = (typeof failureReasons)[number];

/** The parts of a `metav1.Status` that classification reads. */
export interface StatusSummary {
  reason?: string | undefined;
  message?: string | undefined;
}

// Admission denials carry the reason the webhook or policy chose (often none,
// or Forbidden/Invalid), so they are recognised by the message the apiserver
// wraps them in: `admission webhook "x" denied the request…` and
// `ValidatingAdmissionPolicy 'x' with binding 'y' denied request…`.
const admissionDenial =
  /admission webhook "[^"]*" denied the request|ValidatingAdmissionPolicy '[^']*'.* denied request/;

/** True for codes that mean the write did not happen. 0 = no response at all. */
export function isFailureCode(code: number): boolean {
  return code === 0 || code >= 400;
}

/**
 * The failure reason of a response, or undefined for a success.
 * Precedence: admission denial (from the message), then the Status reason,
 * then the HTTP code, so a Status-less or unparsable body still classifies.
 */
export function classifyFailure(code: number, status: StatusSummary = {}): FailureReason | undefined {
  if (!isFailureCode(code)) return undefined;
  if (status.message && admissionDenial.test(status.message)) return "WebhookDenied";
  switch (status.reason) {
    case "Conflict":
    case "AlreadyExists":
      return "Conflict";
    case "Invalid":
      return "Invalid";
    case "Forbidden":
    case "Unauthorized":
      return "Forbidden";
    case "NotFound":
      return "NotFound";
    case "TooManyRequests":
      return "TooManyRequests";
    case "Timeout":
    case "ServerTimeout":
      return "Timeout";
    case "RequestEntityTooLarge":
      return "TooLarge";
    case "InternalError":
    case "ServiceUnavailable":
      return "ServerError";
  }
  if (code === 409) return "Conflict";
  if (code === 422) return "Invalid";
  if (code === 401 || code === 403) return "Forbidden";
  if (code === 404) return "NotFound";
  if (code === 429) return "TooManyRequests";
  if (code === 408 || code === 504) return "Timeout";
  if (code === 413) return "TooLarge";
  if (code >= 500) return "ServerError";
  return "Other";
}

/**
 * Reads reason and message from the first bytes of an error body. The body
 * may be cut short (only a bounded prefix is kept), so when it is not valid
 * JSON the two fields are picked out of the text; anything that is not a
 * Status yields an empty summary and the code alone decides.
 */
export function parseStatusPrefix(prefix: string): StatusSummary {
  try {
    const parsed: unknown = JSON.parse(prefix);
    if (parsed && typeof parsed === "object" && (parsed as { kind?: unknown }).kind === "Status") {
      const { reason, message } = parsed as { reason?: unknown; message?: unknown };
      return {
        reason: typeof reason === "string" ? reason : undefined,
        message: typeof message === "string" ? message : undefined,
      };
    }
    return {};
  } catch {
    if (!/"kind"\s*:\s*"Status"/.test(prefix)) return {};
    const reason = /"reason"\s*:\s*"([A-Za-z]+)"/.exec(prefix)?.[1];
    // A message cut mid-way is still useful for the admission-denial prefix.
    const message = /"message"\s*:\s*"((?:[^"\\]|\\.)*)/.exec(prefix)?.[1];
    return { reason, message: message?.replace(/\\"/g, '"') };
  }
}
