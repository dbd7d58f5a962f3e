// Status writes counted from the request path: the sidecar API proxy and the
// audit webhook receiver, both feeding the same metric families.
export { type ApiProxy, type ApiProxyOptions, startApiProxy } from "./api-proxy.ts";
export {
  type AuditBatch,
  AuditPayloadError,
  type AuditStatusWrite,
  parseAuditEventList,
} from "./audit-events.ts";
export { type AuditReceiver, type AuditReceiverOptions, startAuditReceiver } from "./audit-receiver.ts";
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
export { operatorKubeconfigYaml, writeOperatorKubeconfig } from "./operator-kubeconfig.ts";
export { type OperatorUser, operatorUserFrom } from "./operator-user.ts";
export { isStatusWrite, parseResourceRequest, type ResourceRequest } from "./request-path.ts";
export { serviceAccountTokenPath, type Upstream } from "./upstream.ts";
