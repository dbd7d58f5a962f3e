// The values of the Helm chart deploy/helm/cr-status-exporter: defaults,
// schema and documentation in one place. `npm run generate` writes
// values.yaml, values.schema.json and README.md from it; a unit test fails
// while they are stale. The alert section is derived from alerts/src, so a new
// alert or threshold appears here (and in the chart's schema) by itself.

import { Type } from "typebox";
import {
  chartAlertDefaults,
  DEFAULT_ALERT_OPTIONS,
  generateRuleGroups,
  isAlertingRule,
} from "../../alerts/src/index.ts";
import type { AlertOptions } from "../../alerts/src/options.ts";
import { configSchema } from "../../src/config/options.ts";
import {
  bool,
  custom,
  duration,
  type Group,
  group,
  int,
  k8sList,
  k8sObject,
  type Node,
  num,
  oneOf,
  str,
  stringList,
  stringMap,
} from "./spec.ts";

const probe = (
  doc: string,
  timing: { enabled: boolean; periodSeconds: number; timeoutSeconds: number; failureThreshold: number },
): Group =>
  group(doc, {
    enabled: bool(timing.enabled, "Whether the container gets this probe."),
    initialDelaySeconds: int(0, "Seconds after the container starts before the first probe."),
    periodSeconds: int(timing.periodSeconds, "Seconds between probes.", 1),
    timeoutSeconds: int(timing.timeoutSeconds, "Seconds after which a probe times out.", 1),
    failureThreshold: int(timing.failureThreshold, "Consecutive failures that count as failed.", 1),
  });

const thresholdDocs: Record<keyof AlertOptions["thresholds"], string> = {
  terminatingSeconds: "CustomResourceStuckTerminating: seconds after deletionTimestamp an object is stuck.",
  flapTransitions:
    "CustomResourceReadyFlapping: Ready transitions within flapWindow above which an object flaps.",
  flapWindow: "CustomResourceReadyFlapping: the window the transitions are counted in.",
  writesPerSecond:
    "CustomResourceStatusWriteStorm: status writes per second per object (meaningful + no-op).",
  updateFailureRatio:
    "CustomResourceStatusUpdateFailures: share of failed status writes per namespace and kind (0..1).",
  notReadyRatio:
    "CustomResourcesNotReadyHigh: share of a kind's objects in a namespace that are Ready=False (0..1).",
  notReadyMinObjects: "CustomResourcesNotReadyHigh: and at least this many of them.",
  staleSeconds:
    "CRStatusExporterStale: age in seconds of a resource's data (last list, watch start, event or bookmark).",
  heartbeatSeconds:
    "CustomResourceHeartbeatStale: age in seconds of an object's heartbeat field (heartbeatField) above which it fires.",
};

/** prometheusRule.scope, and the same fields per alert. */
function scopeValues(doc: string, fieldDoc: (what: string) => string): Group {
  const regex = (what: string) => str("", fieldDoc(what));
  return group(doc, {
    kinds: regex("Kinds covered (regular expression, e.g. `Certificate|Issuer`)"),
    excludeKinds: regex("Kinds left out"),
    namespaces: regex("Namespaces covered (e.g. `team-.*`)"),
    excludeNamespaces: regex("Namespaces left out (e.g. `kube-.*`)"),
  });
}

function alertValues(): Group {
  const defaults = chartAlertDefaults();
  const summaries = new Map(
    generateRuleGroups({ ...DEFAULT_ALERT_OPTIONS, families: { heartbeat: true, conditionStale: true } })
      .flatMap((g) => g.rules)
      .filter(isAlertingRule)
      .map((rule) => [rule.alert, rule.annotations.summary]),
  );
  const thresholds = DEFAULT_ALERT_OPTIONS.thresholds;
  return group("", {
    job: str(
      "",
      "The `job` label the rules select. Default: the job the ServiceMonitor produces, i.e. the Service's " +
        "`serviceMonitor.jobLabel` label (the chart name, or `nameOverride`), else the Service name. Set it when " +
        "another scrape configuration scrapes the exporter.",
      { pattern: "^[A-Za-z0-9._/-]*$" },
    ),
    additionalRuleLabels: stringMap(
      "Labels added to every alert, e.g. for Alertmanager routing (`team: platform`).",
    ),
    keepFiringFor: duration(
      defaults.keepFiringFor,
      "keep_firing_for of the per-object alerts: they ride over exporter restarts. Empty omits it.",
      true,
    ),
    rateWindow: duration(defaults.rateWindow, "Window of the rate() and increase() in the rules."),
    includeSuspended: bool(
      false,
      "Count suspended objects (cr_suspended: spec.suspend, spec.paused or a configured switch) in the " +
        "Not-Ready alerts and recording rules; by default they are left out, as nobody reconciles them on purpose.",
    ),
    scope: scopeValues(
      "Which objects the per-object and per-namespace alerts cover; each alert's own `scope` fields replace these.",
      (what) => `${what}; empty: no constraint.`,
    ),
    runbookBaseUrl: str(
      defaults.runbookBaseUrl,
      "Base URL of the runbook; each alert links to `<base>#<alert>`.",
    ),
    thresholds: group(
      "Thresholds in the alert expressions.",
      Object.fromEntries(
        (Object.keys(thresholds) as (keyof typeof thresholds)[]).map((key) => {
          const value = thresholds[key];
          const doc = thresholdDocs[key];
          if (typeof value === "string") return [key, duration(value, doc)];
          return [key, key.endsWith("Ratio") ? num(value, doc, { maximum: 1 }) : num(value, doc)];
        }),
      ),
    ),
    alerts: group(
      "Each alert (docs/runbook.md): `enabled`, its `for`, `severity` and extra `labels`.",
      Object.fromEntries(
        Object.entries(defaults.alerts).map(([alert, rule]) => [
          alert,
          group(summaries.get(alert) ?? "", {
            enabled: bool(
              rule.enabled,
              rule.enabled
                ? `Whether ${alert} is rendered.`
                : `Whether ${alert} is rendered: off by default, as its family must be configured or opted in (docs/runbook.md).`,
            ),
            for: duration(
              rule.for,
              rule.fromTransition
                ? `How long the condition must have held its status, counted from its lastTransitionTime, before ${alert} fires.`
                : `How long the condition must hold before ${alert} fires.`,
            ),
            severity: oneOf(
              ["critical", "warning", "info"],
              rule.severity,
              `The severity label of ${alert}.`,
            ),
            labels: stringMap(`Labels added to ${alert} (after additionalRuleLabels).`),
            ...(rule.scoped
              ? {
                  scope: scopeValues(
                    `Which objects ${alert} covers, field by field over prometheusRule.scope.`,
                    (what) => `${what}; empty: prometheusRule.scope's.`,
                  ),
                }
              : {}),
          }),
        ]),
      ),
    ),
  });
}

/** Image pull secrets: names, or `{name: …}` objects (both forms are common in parent charts). */
const pullSecretsSchema = {
  type: "array",
  items: {
    oneOf: [
      { type: "string" },
      {
        type: "object",
        properties: { name: { type: "string" } },
        required: ["name"],
        additionalProperties: false,
      },
    ],
  },
};

export function chartValues(): Group {
  const alerting = alertValues();
  return group("", {
    mode: oneOf(
      ["cluster", "sidecar"],
      "cluster",
      "`cluster`: a Deployment watching custom resources across the cluster. `sidecar`: no Deployment; the chart " +
        "renders what the exporter needs next to an operator (config, Role for the operator's service account, " +
        "metrics Service, monitoring) and NOTES.txt prints the container to add to the operator's pod.",
    ),
    enabled: bool(
      true,
      "For a parent chart's `condition: cr-status-exporter.enabled`; this chart renders whatever it says.",
    ),
    global: custom(
      {},
      {
        type: "object",
        properties: {
          imageRegistry: { type: "string" },
          imagePullSecrets: pullSecretsSchema,
        },
      },
      "Set by parent charts: `imageRegistry` replaces `image.registry`, `imagePullSecrets` are used with " +
        "`imagePullSecrets`; other keys are not read.",
    ),
    image: group("The exporter's image: `<registry>/<repository>:<tag>[@<digest>]`.", {
      registry: str("ghcr.io", "Registry host."),
      repository: str("cr-status-exporter/cr-status-exporter", "Repository in the registry."),
      tag: str("", "Tag; defaults to the chart's appVersion."),
      digest: str("", "Digest (`sha256:…`); pins the image, kept next to the tag for readability.", {
        pattern: "^(sha256:[0-9a-f]{64})?$",
      }),
      pullPolicy: oneOf(["Always", "IfNotPresent", "Never"], "IfNotPresent", "Image pull policy."),
    }),
    imagePullSecrets: custom(
      [],
      pullSecretsSchema,
      "Secrets for pulling the image: names, or `{name: …}` objects.",
    ),
    nameOverride: str(
      "",
      "Replaces the chart name in object names and in `app.kubernetes.io/name` (the job label).",
    ),
    fullnameOverride: str("", "Replaces the full name of the objects."),
    commonLabels: stringMap("Labels added to every object."),
    releaseLabel: str(
      "",
      "The Helm release name of kube-prometheus-stack: adds `release: <value>` to the ServiceMonitor and the " +
        "PrometheusRule, which kube-prometheus-stack's Prometheus selects by default.",
    ),
    replicas: int(
      1,
      "Replicas of the Deployment (cluster mode). Each replica exports every series; the alerts aggregate them away.",
    ),
    revisionHistoryLimit: int(10, "Old ReplicaSets (or StatefulSet revisions) kept for rollback."),
    sharding: group(
      "Sharding (cluster mode): a StatefulSet of `shards` pods instead of the Deployment; each pod keeps, exports " +
        "and traces only the objects whose uid hashes to its ordinal, and follows the StatefulSet's replicas " +
        "(`kubectl scale` re-shards without restarting the pods). A Role lets the pods read their StatefulSet. " +
        "docs/install.md, Sharding; docs/sizing.md has objects per shard.",
      {
        enabled: bool(false, "Run the StatefulSet (replaces `replicas` and the Deployment)."),
        shards: int(3, "Pods of the StatefulSet, one shard each.", 1),
      },
    ),
    config: custom(
      {
        logLevel: "info",
        crdDiscovery: true,
        // No `resources`: the chart grants list/watch on exactly those given, and refuses to render without them
        // (an empty list is refused by the exporter's schema; unset, the exporter would watch every CRD).
      },
      // The exporter's own schema (docs/config.schema.json), so helm refuses a misspelt key or a bad value by path.
      configSchema(Type) as Record<string, unknown>,
      "The exporter's configuration file (format: config.example.yaml; schema: docs/config.schema.json), in a " +
        "ConfigMap the exporter reloads when it changes. `resources` is required (the kinds to watch; the RBAC is " +
        "derived from them), e.g. `--set config.resources[0].group=cert-manager.io --set " +
        "config.resources[0].resource=certificates`. `listen` defaults to `0.0.0.0:<service.port>` (a loopback " +
        "address is refused: the Service and the probes could not reach it). Set tracing, the audit receiver and TLS " +
        "through their own values below, not here.",
    ),
    rbac: group("RBAC for the exporter's service account.", {
      create: bool(true, "Create the (Cluster)Role and binding."),
      scope: oneOf(
        ["cluster", "namespace"],
        "cluster",
        "`cluster`: one ClusterRole. `namespace`: a Role in each of `namespaces` (needs `config.crdDiscovery: false` " +
          "and fully specified resources). Sidecar mode is always namespaced.",
      ),
      namespaces: stringList(
        "Namespaces of the Roles when scope is namespace; default: the release namespace.",
      ),
      rules: k8sList(
        "Rules replacing the derived ones (list/watch on exactly `config.resources`, plus CRDs with discovery), e.g. " +
          "for discovery by glob, category or CRD label selector.",
      ),
    }),
    serviceAccount: group("The exporter's service account (cluster mode).", {
      create: bool(true, "Create it."),
      name: str("", "Its name; default: the release's full name."),
      annotations: stringMap("Annotations, e.g. for workload identity."),
      automountServiceAccountToken: bool(true, "Mount its token (the exporter uses it to watch)."),
    }),
    resources: k8sObject("Requests and limits of the exporter container in cluster mode (docs/sizing.md).", {
      requests: { cpu: "50m", memory: "256Mi" },
      limits: { memory: "1Gi" },
    }),
    podSecurityContext: k8sObject(
      "Pod security context (cluster mode): Pod Security Standard `restricted`.",
      {
        runAsNonRoot: true,
        runAsUser: 1000,
        runAsGroup: 1000,
        fsGroup: 1000,
        seccompProfile: { type: "RuntimeDefault" },
      },
    ),
    securityContext: k8sObject("The exporter container's security context.", {
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
    }),
    startupProbe: probe("GET /healthz until the process serves (cluster mode).", {
      enabled: true,
      periodSeconds: 2,
      timeoutSeconds: 5,
      failureThreshold: 30,
    }),
    checkConfig: group(
      "An init container that runs the exporter's `--check-config` on the rendered configuration with the same flags, " +
        "environment and mounts (cluster mode): a configuration the exporter refuses stops the pod at `Init:Error`, " +
        "the field-named problem in the init container's log, before the exporter starts.",
      { enabled: bool(true, "Whether the pod gets the check-config init container.") },
    ),
    livenessProbe: probe("GET /healthz: restarts a hung exporter.", {
      enabled: true,
      periodSeconds: 10,
      timeoutSeconds: 5,
      failureThreshold: 3,
    }),
    readinessProbe: probe(
      "GET /readyz (cluster mode): ready once every configured resource is listed. The Service publishes not-ready " +
        "addresses, so Prometheus keeps scraping the metrics that say why.",
      { enabled: true, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 3 },
    ),
    annotations: stringMap("Annotations of the Deployment."),
    podAnnotations: stringMap("Annotations of the pod."),
    podLabels: stringMap("Labels of the pod."),
    extraArgs: stringList("Extra command-line flags of the exporter."),
    extraEnv: k8sList(
      "Extra environment variables of the exporter container (`${VAR}` in config is read from them).",
    ),
    extraVolumes: k8sList("Extra volumes of the pod (cluster mode; in sidecar mode, printed by NOTES.txt)."),
    extraVolumeMounts: k8sList("Extra volume mounts of the exporter container."),
    nodeSelector: stringMap("Node selector."),
    tolerations: k8sList("Tolerations."),
    affinity: k8sObject("Affinity."),
    topologySpreadConstraints: k8sList(
      "Topology spread constraints; the pod's selector labels are filled in when `labelSelector` is absent.",
    ),
    priorityClassName: str("", "Priority class of the pod."),
    podDisruptionBudget: custom(
      {},
      {
        type: "object",
        additionalProperties: false,
        properties: {
          minAvailable: { type: ["integer", "string"] },
          maxUnavailable: { type: ["integer", "string"] },
          unhealthyPodEvictionPolicy: { type: "string", enum: ["IfHealthyBudget", "AlwaysAllow"] },
        },
      },
      "A PodDisruptionBudget (cluster mode) when not empty, e.g. `{maxUnavailable: 1}`.",
    ),
    service: group("The Service in front of the metrics port (and the audit receiver's).", {
      port: int(9184, "Port of /metrics, /healthz and /readyz.", 1, { maximum: 65535 }),
      annotations: stringMap("Annotations of the Service."),
      labels: stringMap("Extra labels of the Service."),
    }),
    web: group("The metrics endpoint: HTTPS and who may read /metrics.", {
      tls: group(
        "HTTPS from a web configuration file the chart writes (exporter-toolkit format); the certificate is " +
          "re-read when the Secret changes (e.g. renewed by cert-manager).",
        {
          enabled: bool(false, "Serve HTTPS instead of HTTP."),
          secretName: str(
            "",
            "Secret (type kubernetes.io/tls) with `tls.crt` and `tls.key`, and `ca.crt` for the ServiceMonitor's default tlsConfig.",
          ),
          clientAuthType: oneOf(
            [
              "NoClientCert",
              "RequestClientCert",
              "RequireAnyClientCert",
              "VerifyClientCertIfGiven",
              "RequireAndVerifyClientCert",
            ],
            "NoClientCert",
            "Client certificates (exporter-toolkit names). The kubelet's probes present none: with the Require* types " +
              "the probes become TCP checks.",
          ),
          clientCASecretName: str("", "Secret with `ca.crt`, the CA client certificates must chain to."),
          minVersion: oneOf(["TLS10", "TLS11", "TLS12", "TLS13"], "TLS12", "Minimum TLS version."),
        },
      ),
      auth: oneOf(
        ["none", "kubernetes"],
        "none",
        "`kubernetes`: /metrics (every path but the probes) needs a bearer token that passes a TokenReview and may " +
          "`get` the path, a non-resource URL (kube-prometheus-stack's Prometheus role grants `get` on /metrics). " +
          "Needs `web.tls.enabled`; binds " +
          "system:auth-delegator to the service account, and the ServiceMonitor sends a token allowed to (see " +
          "`serviceMonitor.authorization`).",
      ),
    }),
    serviceMonitor: group("A prometheus-operator ServiceMonitor.", {
      enabled: bool(false, "Create it (needs the monitoring.coreos.com CRDs)."),
      namespace: str("", "Its namespace; default: the release namespace."),
      additionalLabels: stringMap(
        "Extra labels, e.g. for a Prometheus `serviceMonitorSelector` (see also `releaseLabel`).",
      ),
      annotations: stringMap("Annotations."),
      jobLabel: str(
        "app.kubernetes.io/name",
        "Service label whose value becomes `job`: the chart name (or `nameOverride`) whatever the release is called. " +
          "The alerts follow it.",
      ),
      honorLabels: bool(true, "Keep the objects' own `namespace`/`name` labels over the target's."),
      interval: duration("30s", "Scrape interval.", true),
      scrapeTimeout: duration(
        "",
        "Scrape timeout; default: Prometheus' (10s, or the interval if shorter).",
        true,
      ),
      sampleLimit: int(
        0,
        "Scrapes with more samples fail (0: no limit); docs/sizing.md has series per object.",
      ),
      targetLimit: int(0, "More targets fail the scrape pool (0: no limit)."),
      labelLimit: int(0, "Scrapes with a sample with more labels fail (0: no limit)."),
      labelNameLengthLimit: int(0, "Scrapes with a longer label name fail (0: no limit)."),
      labelValueLengthLimit: int(0, "Scrapes with a longer label value fail (0: no limit)."),
      targetLabels: stringList("Service labels copied onto every scraped series."),
      podTargetLabels: stringList("Pod labels copied onto every scraped series."),
      scrapeClass: str(
        "",
        "The Prometheus scrape class to use (prometheus-operator ≥ 0.73); empty: the default.",
      ),
      authorization: group(
        "With `web.auth: kubernetes`: the token the ServiceMonitor sends, through `authorization` (prometheus-operator " +
          "deprecates `bearerTokenFile`, and refuses it with `arbitraryFSAccessThroughSMs.deny`).",
        {
          tokenSecretName: str(
            "",
            "A Secret in the ServiceMonitor's namespace whose `token` key is sent. Empty: the chart creates the " +
              "ServiceAccount `<fullname>-scraper` there, its token Secret (filled by the token controller) and a " +
              "ClusterRole to `get` /metrics.",
          ),
          bearerTokenFile: bool(
            false,
            "Send Prometheus' own service account token (`bearerTokenFile`) instead; its role must `get` /metrics.",
          ),
        },
      ),
      relabelings: k8sList("Relabelings before scraping (prometheus-operator RelabelConfig)."),
      metricRelabelings: k8sList("Relabelings of the scraped samples."),
      tlsConfig: k8sObject(
        "tlsConfig of the endpoint with `web.tls.enabled`; default: the CA in the serving Secret's `ca.crt` and the " +
          "Service's DNS name as serverName.",
      ),
    }),
    prometheusRule: group(
      "A prometheus-operator PrometheusRule with the alerts of docs/runbook.md, tuned here.",
      {
        enabled: bool(false, "Create it (needs the monitoring.coreos.com CRDs)."),
        namespace: str("", "Its namespace; default: the release namespace."),
        additionalLabels: stringMap(
          "Extra labels, e.g. for a Prometheus `ruleSelector` (see also `releaseLabel`).",
        ),
        annotations: stringMap("Annotations."),
        additionalGroups: k8sList(
          "Rule groups of your own, appended to the PrometheusRule after the shipped ones as given (not tuned " +
            "by `alerts`), e.g. an example's `rules.values.yaml` (examples/: cert-manager expiry, Cluster API and " +
            "CloudNativePG replicas, CloudNativePG backups).",
        ),
        ...alerting.children,
      },
    ),
    dashboards: group(
      "Grafana dashboards as ConfigMaps for Grafana's dashboard sidecar (kube-prometheus-stack's loads them from every namespace by default).",
      {
        enabled: bool(false, "Create them."),
        namespace: str("", "Where Grafana's sidecar looks; default: the release namespace."),
        label: str("grafana_dashboard", "Label the sidecar selects."),
        labelValue: str("1", "Its value."),
        multiCluster: bool(
          false,
          "Several clusters behind one data source (Thanos, Mimir): the dashboards show the cluster picker and their " +
            "links carry each row's cluster.",
        ),
        annotations: stringMap(
          "Annotations, e.g. `grafana_folder: CR Status` with the sidecar's folderAnnotation.",
        ),
      },
    ),
    networkPolicy: group("Ingress to the exporter's ports only (cluster mode).", {
      enabled: bool(false, "Create it."),
      from: k8sList("NetworkPolicy peers allowed to connect; empty: from anywhere."),
    }),
    tracing: group("OpenTelemetry spans for state transitions (docs/tracing.md).", {
      endpoint: str(
        "",
        "OTLP/HTTP base URL, e.g. `http://otel-collector.observability:4318`: spans go to its `/v1/traces` (like " +
          "OTEL_EXPORTER_OTLP_ENDPOINT); empty: off unless tracesEndpoint is set.",
        { pattern: "^(https?://.*)?$" },
      ),
      tracesEndpoint: str(
        "",
        "OTLP/HTTP traces URL, used as given, e.g. `http://otel-collector.observability:4318/v1/traces` (like " +
          "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT); wins over endpoint.",
        { pattern: "^(https?://.*)?$" },
      ),
      clusterName: str("", "Salts the deterministic trace ids; default: the exporter's (`default`)."),
      lease: group(
        "Elects the one replica that exports spans (with replicas > 1): a Lease, with a Role to get, create and " +
          "update it.",
        {
          enabled: bool(false, "Use a Lease."),
          name: str("", "Its name; default: the release's full name."),
          namespace: str("", "Its namespace; default: the release namespace."),
        },
      ),
    }),
    otlpMetrics: group(
      "Every family /metrics serves, pushed over OTLP/HTTP as well (docs/otlp-metrics.md); unset keys fall back to " +
        "the OTEL_* variables of extraEnv, then to the specification's defaults.",
      {
        endpoint: str(
          "",
          "OTLP/HTTP base URL, e.g. `http://otel-collector.observability:4318`: metrics go to its `/v1/metrics` " +
            "(like OTEL_EXPORTER_OTLP_ENDPOINT); empty: off unless metricsEndpoint is set.",
          { pattern: "^(https?://.*)?$" },
        ),
        metricsEndpoint: str(
          "",
          "OTLP/HTTP metrics URL, used as given (like OTEL_EXPORTER_OTLP_METRICS_ENDPOINT); wins over endpoint.",
          { pattern: "^(https?://.*)?$" },
        ),
        protocol: oneOf(["", "http/protobuf", "http/json"], "", "Empty: http/protobuf."),
        compression: oneOf(["", "gzip", "none"], "", "Empty: none."),
        interval: str("", "Between the starts of two exports, e.g. `30s`; empty: 60s.", {
          pattern: "^([0-9]+([.][0-9]+)?(ms|s|m|h))?$",
        }),
        headers: stringMap("HTTP headers of every request, e.g. a tenant header of the collector."),
        lease: bool(
          false,
          "With replicas > 1: only the replica holding tracing.lease's Lease (its name and namespace) pushes, " +
            "so the collector sees each series once; creates the Lease's Role as tracing.lease does.",
        ),
      },
    ),
    auditReceiver: group(
      "The audit webhook receiver counting status writes cluster-wide (docs/status-writes.md): an HTTPS port on the " +
        "Service that the apiserver's audit webhook posts to.",
      {
        enabled: bool(false, "Run it (cluster mode)."),
        port: int(9443, "Its port on the container and the Service.", 1, { maximum: 65535 }),
        tlsSecretName: str("", "Secret (type kubernetes.io/tls) with its serving `tls.crt` and `tls.key`."),
        tokenSecretName: str("", "Secret with `token`: the bearer token the webhook must present."),
        clientCASecretName: str("", "Secret with `ca.crt`: or the CA of the webhook's client certificate."),
      },
    ),
    sidecar: group("Sidecar mode: the exporter as a native sidecar in an operator's pod.", {
      operator: group("The operator the exporter joins.", {
        serviceAccountName: str("", "The operator pod's service account: the Role is bound to it."),
        podLabels: stringMap("Labels of the operator's pods: the metrics Service selects them."),
      }),
      apiProxy: group("The API proxy counting the operator's status writes (docs/status-writes.md).", {
        enabled: bool(true, "Run it; the operator's container then uses the kubeconfig it writes."),
        listen: str("127.0.0.1:8001", "Its loopback address."),
        kubeconfigPath: str(
          "/var/run/cr-status-exporter/kubeconfig",
          "Where it writes the operator's kubeconfig.",
        ),
      }),
      resources: k8sObject("Requests and limits of the sidecar (docs/sizing.md: a few thousand objects).", {
        requests: { cpu: "20m", memory: "256Mi" },
        limits: { memory: "512Mi" },
      }),
      readinessProbe: probe(
        "Off by default: Kubernetes counts a native sidecar's readiness into the pod's Ready condition, so a sidecar " +
          "readiness probe could take the operator's pod (and its webhooks) out of its Services. When enabled it " +
          "probes /healthz, never /readyz (the exporter's sync state is not the operator's readiness).",
        { enabled: false, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 3 },
      ),
    }),
  } satisfies Record<string, Node>);
}
