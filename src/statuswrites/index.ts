// Status writes counted from the request path: the sidecar API proxy and the
// audit webhook receiver, both feeding the same metric families.

export {
  type AuditBatch,
  AuditPayloadError,
  type AuditStatusWrite,
  parseAuditEventList,
} from "./audit/audit-events.ts";
export { type AuditReceiver, type AuditReceiverOptions, startAuditReceiver } from "./audit/audit-receiver.ts";
export { classifyFailure, type FailureReason, failureReasons, parseStatusPrefix } from "./classify.ts";
export { confirmedLabels, type FoldedLabel, otherLabel } from "./confirmed-labels.ts";
export {
  createDiscoveryKindResolver,
  type KindResolver,
  staticKindResolver,
  unconfirmingKindResolver,
} from "./kinds.ts";
export { isLoopbackHost } from "./listen-address.ts";
export {
  createStatusWriteMetrics,
  type StatusWriteMetrics,
  type StatusWriteMetricsOptions,
  type StatusWriteObservation,
} from "./metrics.ts";
export { KnownNamespaces, type KnownNamespacesOptions } from "./namespaces.ts";
export { type ApiProxy, type ApiProxyOptions, startApiProxy } from "./proxy/api-proxy.ts";
export { operatorKubeconfigYaml, writeOperatorKubeconfig } from "./proxy/operator-kubeconfig.ts";
export { type OperatorUser, operatorUserFrom } from "./proxy/operator-user.ts";
export { serviceAccountTokenPath, type Upstream } from "./proxy/upstream.ts";
export { isStatusWrite, parseResourceRequest, type ResourceRequest } from "./request-path.ts";
