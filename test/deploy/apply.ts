// Server-side apply with dryRun=All through the test REST client, as
// `kubectl apply --server-side --dry-run=server` does: the apiserver runs
// defaulting, schema validation (CRD OpenAPI schemas included) and admission,
// then discards the result. Kinds are mapped to REST paths by discovery.

import type { RestClient } from "../cluster/rest.ts";
import type { KubeObject } from "./render.ts";

interface ApiResourceList {
  resources: { name: string; kind: string; namespaced: boolean }[];
}

export class DryRunApplier {
  readonly #rest: RestClient;
  readonly #discovery = new Map<string, ApiResourceList>();

  constructor(rest: RestClient) {
    this.#rest = rest;
  }

  async #resourceFor(object: KubeObject): Promise<{ plural: string; namespaced: boolean }> {
    const base = object.apiVersion.includes("/") ? `/apis/${object.apiVersion}` : `/api/${object.apiVersion}`;
    let list = this.#discovery.get(base);
    if (!list) {
      list = await this.#rest.get<ApiResourceList>(base);
      this.#discovery.set(base, list);
    }
    const resource = list.resources.find((r) => r.kind === object.kind && !r.name.includes("/"));
    if (!resource) throw new Error(`${object.apiVersion} ${object.kind} is not served by the apiserver`);
    return { plural: resource.name, namespaced: resource.namespaced };
  }

  /** The REST path of the object (namespaced objects need metadata.namespace). */
  async pathOf(object: KubeObject): Promise<string> {
    const { plural, namespaced } = await this.#resourceFor(object);
    const base = object.apiVersion.includes("/") ? `/apis/${object.apiVersion}` : `/api/${object.apiVersion}`;
    if (namespaced && !object.metadata.namespace) {
      throw new Error(`${object.kind} ${object.metadata.name} is namespaced but has no namespace`);
    }
    const namespace = namespaced ? `/namespaces/${object.metadata.namespace}` : "";
    return `${base}${namespace}/${plural}/${object.metadata.name}`;
  }

  /** Resolves with the status code and the Status message on failure. */
  async apply(object: KubeObject): Promise<{ status: number; message: string | undefined }> {
    const path = await this.pathOf(object);
    const response = await this.#rest.raw<{ message?: string }>("PATCH", path, JSON.stringify(object), {
      contentType: "application/apply-patch+yaml",
      query: { dryRun: "All", fieldManager: "cr-status-exporter-deploy-test", fieldValidation: "Strict" },
    });
    return {
      status: response.status,
      message: response.status >= 300 ? (response.body?.message ?? JSON.stringify(response.body)) : undefined,
    };
  }
}
