// Stand-ins for two imports of @kubernetes/client-node's KubeConfig module
// that this exporter never reaches (see kubeconfig.ts): the generated API
// (`createConfiguration`, `ServerConfiguration`: KubeConfig.makeApiClient) and
// undici's agents (`Agent`, `ProxyAgent`: KubeConfig.applyToFetchOptions).
// Reaching one is a programming error, reported as such.
function notLoaded(what: string): Error {
  return new Error(
    `${what} is not loaded: cr-status-exporter loads KubeConfig for applyToHTTPSOptions only (src/kube/kubeconfig.ts)`,
  );
}

export function createConfiguration(): never {
  throw notLoaded("the generated Kubernetes API client");
}

export class ServerConfiguration {
  constructor() {
    throw notLoaded("the generated Kubernetes API client");
  }
}

export class Agent {
  constructor() {
    throw notLoaded("undici");
  }
}

export class ProxyAgent {
  constructor() {
    throw notLoaded("undici");
  }
}
