// Attributes and links shared by every kind of span: the object's identity
// (repeated on children so each span can be found alone) and the link to a
// generation's root span.
import type { ObjectState, ResourceIdentity } from "../../core/state.ts";
import type { LinkReason } from "../attributes.ts";
import * as attr from "../attributes.ts";
import { generationTraceKey, spanIdOf, traceIdOf } from "../ids.ts";
import type { Episode, ObjectTraceState, PlannerSettings, SpanAttributes, SpanLinkPlan } from "./model.ts";

const identityKeys = [
  attr.K8S_NAMESPACE_NAME,
  attr.K8S_OBJECT_KIND,
  attr.K8S_OBJECT_NAME,
  attr.K8S_OBJECT_UID,
  attr.K8S_OBJECT_API_VERSION,
  attr.RESOURCE,
];

export function identityAttributes(resource: ResourceIdentity, object: ObjectState): SpanAttributes {
  const attributes: SpanAttributes = {};
  if (resource.namespaced && object.namespace) attributes[attr.K8S_NAMESPACE_NAME] = object.namespace;
  attributes[attr.K8S_OBJECT_KIND] = resource.kind;
  attributes[attr.K8S_OBJECT_NAME] = object.name;
  attributes[attr.K8S_OBJECT_UID] = object.uid;
  attributes[attr.K8S_OBJECT_API_VERSION] = resource.group
    ? `${resource.group}/${resource.version}`
    : resource.version;
  attributes[attr.RESOURCE] = resource.group ? `${resource.resource}.${resource.group}` : resource.resource;
  return attributes;
}

/** The identity attributes of an episode, repeated on its children so each span can be found alone. */
export function identityOf(episode: Episode): SpanAttributes {
  const identity: SpanAttributes = {};
  for (const key of identityKeys) {
    const value = episode.attributes[key];
    if (value !== undefined) identity[key] = value;
  }
  return identity;
}

/** The link to `generation`'s root: in the trace it joined when this process traced it, else in its own. */
export function generationLink(
  settings: PlannerSettings,
  state: ObjectTraceState,
  generation: number,
  reason: LinkReason,
): SpanLinkPlan {
  const key = generationTraceKey(settings.cluster, state.uid, generation);
  const joined = state.tracedGeneration === generation ? state.tracedTraceId : undefined;
  return {
    traceId: joined ?? traceIdOf(key),
    spanId: spanIdOf(key, "root"),
    attributes: { [attr.LINK_REASON]: reason },
  };
}
