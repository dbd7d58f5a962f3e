{{/* Names and labels. */}}
{{- define "cr-status-exporter.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "cr-status-exporter.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else if contains (include "cr-status-exporter.name" .) .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name (include "cr-status-exporter.name" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{/* app.kubernetes.io/name is the ServiceMonitor's jobLabel: job="<chart name or nameOverride>" whatever the release is called. */}}
{{- define "cr-status-exporter.selectorLabels" -}}
app.kubernetes.io/name: {{ include "cr-status-exporter.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "cr-status-exporter.labels" -}}
{{ include "cr-status-exporter.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Labels of the ServiceMonitor and PrometheusRule: kube-prometheus-stack selects them by `release`. Call with (dict "ctx" $ "extra" <additionalLabels>). */}}
{{- define "cr-status-exporter.monitoringLabels" -}}
{{ include "cr-status-exporter.labels" .ctx }}
{{- with .ctx.Values.releaseLabel }}
release: {{ . | quote }}
{{- end }}
{{- with .extra }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "cr-status-exporter.serviceLabels" -}}
{{ include "cr-status-exporter.labels" . }}
{{- with .Values.service.labels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
The `job` the alert rules select: what prometheus-operator makes of the
ServiceMonitor (the Service's jobLabel label when it has one, else the
Service's name), unless prometheusRule.job says otherwise.
*/}}
{{- define "cr-status-exporter.job" -}}
{{- if .Values.prometheusRule.job }}
{{- .Values.prometheusRule.job }}
{{- else }}
{{- $labels := include "cr-status-exporter.serviceLabels" . | fromYaml }}
{{- $fromLabel := "" }}
{{- with .Values.serviceMonitor.jobLabel }}{{ $fromLabel = get $labels . }}{{ end }}
{{- $fromLabel | default (include "cr-status-exporter.fullname" .) }}
{{- end }}
{{- end }}

{{- define "cr-status-exporter.serviceAccountName" -}}
{{- if eq .Values.mode "sidecar" }}
{{- required "sidecar.operator.serviceAccountName is required in sidecar mode" .Values.sidecar.operator.serviceAccountName }}
{{- else if .Values.serviceAccount.create }}
{{- default (include "cr-status-exporter.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "cr-status-exporter.image" -}}
{{- $image := .Values.image }}
{{- $repository := $image.repository }}
{{- $registry := (.Values.global | default dict).imageRegistry | default $image.registry }}
{{- with $registry }}{{ $repository = printf "%s/%s" . $image.repository }}{{ end }}
{{- $tag := default .Chart.AppVersion $image.tag }}
{{- if $image.digest }}
{{- printf "%s:%s@%s" $repository $tag $image.digest }}
{{- else }}
{{- printf "%s:%s" $repository $tag }}
{{- end }}
{{- end }}

{{- define "cr-status-exporter.imagePullSecrets" -}}
{{- range concat ((.Values.global | default dict).imagePullSecrets | default list) .Values.imagePullSecrets }}
{{- if kindIs "string" . }}
- name: {{ . }}
{{- else }}
- {{ toYaml . }}
{{- end }}
{{- end }}
{{- end }}

{{/* Ports and scheme of the metrics endpoint. */}}
{{- define "cr-status-exporter.portName" -}}
{{- eq .Values.mode "sidecar" | ternary "cr-metrics" "metrics" }}
{{- end }}

{{/* Where the chart mounts what it mounts (never below the config ConfigMap's read-only mount). */}}
{{- define "cr-status-exporter.secretsDir" -}}/var/run/secrets/cr-status-exporter{{- end }}

{{/* Checks of combinations the schema cannot express; each failure names the values. */}}
{{- define "cr-status-exporter.validate" -}}
{{- $v := .Values }}
{{- /* The exporter alone, given no resources, watches every CRD: a grant the chart cannot derive, so it asks. */}}
{{- if and (not $v.config.resources) $v.rbac.create (not $v.rbac.rules) }}
{{- fail "config.resources: required: the custom resources to watch, e.g. --set config.resources[0].group=cert-manager.io --set config.resources[0].resource=certificates (a group alone, `groups`, categories or a CRD selector need rbac.rules; to watch every CRD, leave config.resources unset and set rbac.rules granting list and watch on them: docs/install.md)" }}
{{- end }}
{{- if and (eq $v.mode "sidecar") (not (semverCompare ">=1.29.0-0" .Capabilities.KubeVersion.Version)) }}
{{- fail (printf "mode: sidecar runs the exporter as a native sidecar (an init container with restartPolicy: Always), which needs Kubernetes >= 1.29, not %s (helm template without a cluster: pass --kube-version)" .Capabilities.KubeVersion.Version) }}
{{- end }}
{{- if and (eq $v.mode "sidecar") $v.auditReceiver.enabled }}
{{- fail "auditReceiver.enabled: the audit receiver runs in cluster mode only (it serves the apiserver's audit webhook for the whole cluster)" }}
{{- end }}
{{- if and (eq $v.web.auth "kubernetes") (not $v.web.tls.enabled) }}
{{- fail "web.auth: kubernetes needs web.tls.enabled: true (the scraper's token must not cross the network in clear text)" }}
{{- end }}
{{- if and $v.web.tls.enabled (not $v.web.tls.secretName) }}
{{- fail "web.tls.secretName: required with web.tls.enabled (a kubernetes.io/tls Secret with tls.crt and tls.key)" }}
{{- end }}
{{- if and (has $v.web.tls.clientAuthType (list "VerifyClientCertIfGiven" "RequireAndVerifyClientCert")) (not $v.web.tls.clientCASecretName) }}
{{- fail (printf "web.tls.clientCASecretName: required with web.tls.clientAuthType %s" $v.web.tls.clientAuthType) }}
{{- end }}
{{- if $v.auditReceiver.enabled }}
{{- if not $v.auditReceiver.tlsSecretName }}
{{- fail "auditReceiver.tlsSecretName: required with auditReceiver.enabled (its serving certificate and key)" }}
{{- end }}
{{- if not (or $v.auditReceiver.tokenSecretName $v.auditReceiver.clientCASecretName) }}
{{- fail "auditReceiver: set tokenSecretName or clientCASecretName (or both): every audit request must be authenticated" }}
{{- end }}
{{- end }}
{{- range $key := list "webConfigFile" "metricsAuth" "auditReceiver" }}
{{- if hasKey $v.config $key }}
{{- fail (printf "config.%s: set it through the chart's values (web.*, auditReceiver.*), which also mount the files it needs" $key) }}
{{- end }}
{{- end }}
{{- if and $v.sharding.enabled (eq $v.mode "sidecar") }}
{{- fail "sharding.enabled: sharding runs in cluster mode only (a sidecar watches one operator's resources)" }}
{{- end }}
{{- if and $v.sharding.enabled $v.tracing.lease.enabled }}
{{- fail "tracing.lease.enabled: not with sharding.enabled (each shard is one pod and emits its own objects' spans, no Lease needed)" }}
{{- end }}
{{- if hasKey $v.config "sharding" }}
{{- fail "config.sharding: set it through the chart's values (sharding.*), which also create the StatefulSet and its Role" }}
{{- end }}
{{- with $v.config.listen }}
{{- if regexMatch "^(127\\.|localhost:|\\[::1\\]:)" . }}
{{- fail (printf "config.listen: %s is a loopback address: the Service, Prometheus and the kubelet's probes cannot reach it; leave it unset (0.0.0.0:<service.port>) or listen on 0.0.0.0" .) }}
{{- end }}
{{- end }}
{{- $smNamespace := include "cr-status-exporter.serviceMonitorNamespace" . }}
{{- if and $v.serviceMonitor.enabled $v.web.tls.enabled (not $v.serviceMonitor.tlsConfig) (ne $smNamespace .Release.Namespace) }}
{{- fail (printf "serviceMonitor.namespace: prometheus-operator reads the CA Secret of the default tlsConfig (web.tls.secretName %s) from the ServiceMonitor's namespace %s, not the release's %s, and drops the ServiceMonitor when it is not there: give serviceMonitor.tlsConfig (e.g. ca.secret of a copy in %s), or leave serviceMonitor.namespace empty" $v.web.tls.secretName $smNamespace .Release.Namespace $smNamespace) }}
{{- end }}
{{- if and $v.sharding.enabled $v.otlpMetrics.lease }}
{{- fail "otlpMetrics.lease: not with sharding.enabled (each shard is one pod and pushes its own objects' series, no Lease needed)" }}
{{- end }}
{{- $o := $v.otlpMetrics }}
{{- if and $v.config.otlpMetrics (or $o.endpoint $o.metricsEndpoint $o.protocol $o.compression $o.interval $o.headers $o.lease) }}
{{- fail "config.otlpMetrics and otlpMetrics.*: give OTLP metrics settings in one place (otlpMetrics.lease also creates the Lease's RBAC)" }}
{{- end }}
{{- if and $v.config.tracing (or $v.tracing.endpoint $v.tracing.tracesEndpoint $v.tracing.lease.enabled $v.tracing.clusterName) }}
{{- fail "config.tracing and tracing.*: give tracing settings in one place (tracing.* also creates the Lease's RBAC)" }}
{{- end }}
{{- end }}

{{/* The ServiceMonitor's namespace. */}}
{{- define "cr-status-exporter.serviceMonitorNamespace" -}}
{{- .Values.serviceMonitor.namespace | default .Release.Namespace }}
{{- end }}

{{/* The Secret whose token the ServiceMonitor sends with web.auth: kubernetes. */}}
{{- define "cr-status-exporter.scraperTokenSecret" -}}
{{- .Values.serviceMonitor.authorization.tokenSecretName | default (printf "%s-scraper-token" (include "cr-status-exporter.fullname" .)) }}
{{- end }}

{{/* True ("true") when the chart creates the scraper's ServiceAccount, token Secret and RBAC. */}}
{{- define "cr-status-exporter.createsScraper" -}}
{{- $sm := .Values.serviceMonitor }}
{{- if and $sm.enabled (eq .Values.web.auth "kubernetes") (not $sm.authorization.bearerTokenFile) (not $sm.authorization.tokenSecretName) .Values.rbac.create }}true{{ end }}
{{- end }}

{{/* True ("true") when the RBAC objects are namespaced Roles. */}}
{{- define "cr-status-exporter.namespaced" -}}
{{- if or (eq .Values.mode "sidecar") (eq .Values.rbac.scope "namespace") }}true{{ end }}
{{- end }}

{{/* The namespaces of the Roles (namespaced RBAC only), as a JSON list. */}}
{{- define "cr-status-exporter.roleNamespaces" -}}
{{- if and (eq .Values.mode "cluster") .Values.rbac.namespaces }}
{{- toJson .Values.rbac.namespaces }}
{{- else }}
{{- toJson (list .Release.Namespace) }}
{{- end }}
{{- end }}

{{- define "cr-status-exporter.crdDiscovery" -}}
{{- if or (not (hasKey .Values.config "crdDiscovery")) .Values.config.crdDiscovery }}true{{ end }}
{{- end }}

{{- define "cr-status-exporter.leaseName" -}}
{{- .Values.tracing.lease.name | default (include "cr-status-exporter.fullname" .) }}
{{- end }}

{{- define "cr-status-exporter.leaseNamespace" -}}
{{- .Values.tracing.lease.namespace | default .Release.Namespace }}
{{- end }}

{{/* The web configuration file (exporter-toolkit format) for web.tls. */}}
{{- define "cr-status-exporter.webConfig" -}}
{{- $tls := .Values.web.tls }}
{{- $dir := include "cr-status-exporter.secretsDir" . }}
tls_server_config:
  cert_file: {{ $dir }}/tls/tls.crt
  key_file: {{ $dir }}/tls/tls.key
  {{- if $tls.clientCASecretName }}
  client_ca_file: {{ $dir }}/client-ca/ca.crt
  {{- end }}
  client_auth_type: {{ $tls.clientAuthType }}
  min_version: {{ $tls.minVersion }}
{{- end }}

{{/*
The configuration file. listen defaults to 0.0.0.0:<service.port>; with
namespaced RBAC, each resource without `namespaces` is limited to the Roles'
namespaces (cluster-wide lists would be forbidden). Tracing, the audit
receiver and HTTPS come from their own values, which also mount their files.
*/}}
{{- define "cr-status-exporter.config" -}}
{{- $config := deepCopy .Values.config }}
{{- $dir := include "cr-status-exporter.secretsDir" . }}
{{- if not (hasKey $config "listen") }}
{{- $_ := set $config "listen" (printf "0.0.0.0:%v" .Values.service.port) }}
{{- end }}
{{- if include "cr-status-exporter.namespaced" . }}
{{- if include "cr-status-exporter.crdDiscovery" . }}
{{- fail "config.crdDiscovery must be false with namespaced RBAC (sidecar mode or rbac.scope: namespace): CRDs are cluster-scoped" }}
{{- end }}
{{- $namespaces := include "cr-status-exporter.roleNamespaces" . | fromJsonArray }}
{{- range $config.resources }}
{{- if not (hasKey . "namespaces") }}
{{- $_ := set . "namespaces" $namespaces }}
{{- end }}
{{- end }}
{{- end }}
{{- $tracing := dict }}
{{- with .Values.tracing.endpoint }}{{ $_ := set $tracing "endpoint" . }}{{ end }}
{{- with .Values.tracing.tracesEndpoint }}{{ $_ := set $tracing "tracesEndpoint" . }}{{ end }}
{{- with .Values.tracing.clusterName }}{{ $_ := set $tracing "clusterName" . }}{{ end }}
{{- if .Values.tracing.lease.enabled }}
{{- $_ := set $tracing "leaseName" (include "cr-status-exporter.leaseName" .) }}
{{- $_ := set $tracing "leaseNamespace" (include "cr-status-exporter.leaseNamespace" .) }}
{{- end }}
{{- if $tracing }}{{ $_ := set $config "tracing" $tracing }}{{ end }}
{{- $otlp := dict }}
{{- range $key := list "endpoint" "metricsEndpoint" "protocol" "compression" "interval" "headers" }}
{{- with index $.Values.otlpMetrics $key }}{{ $_ := set $otlp $key . }}{{ end }}
{{- end }}
{{- if .Values.otlpMetrics.lease }}
{{- $_ := set $otlp "leaseName" (include "cr-status-exporter.leaseName" .) }}
{{- $_ := set $otlp "leaseNamespace" (include "cr-status-exporter.leaseNamespace" .) }}
{{- end }}
{{- if $otlp }}{{ $_ := set $config "otlpMetrics" $otlp }}{{ end }}
{{- if .Values.web.tls.enabled }}
{{- $_ := set $config "webConfigFile" "/etc/cr-status-exporter/web-config.yaml" }}
{{- end }}
{{- if ne .Values.web.auth "none" }}
{{- $_ := set $config "metricsAuth" .Values.web.auth }}
{{- end }}
{{- with .Values.auditReceiver }}
{{- if .enabled }}
{{- $audit := dict "listen" (printf "0.0.0.0:%v" .port) "certFile" (printf "%s/audit-tls/tls.crt" $dir) "keyFile" (printf "%s/audit-tls/tls.key" $dir) }}
{{- if .tokenSecretName }}{{ $_ := set $audit "bearerTokenFile" (printf "%s/audit-token/token" $dir) }}{{ end }}
{{- if .clientCASecretName }}{{ $_ := set $audit "clientCaFile" (printf "%s/audit-client-ca/ca.crt" $dir) }}{{ end }}
{{- $_ := set $config "auditReceiver" $audit }}
{{- end }}
{{- end }}
{{- toYaml $config }}
{{- end }}

{{/*
RBAC rules: list/watch on exactly the configured resources (grouped by API
group), plus CRDs when discovery is on. A selector whose resources cannot be
named here (a kind without its plural, a group glob, categories, a CRD label
selector) needs explicit rbac.rules.
*/}}
{{- define "cr-status-exporter.rbacRules" -}}
{{- if .Values.rbac.rules }}
{{- toYaml .Values.rbac.rules }}
{{- else }}
{{- $byGroup := dict }}
{{- range $i, $r := .Values.config.resources }}
{{- $where := printf "config.resources[%d]" $i }}
{{- if and $r.group $r.resource }}
{{- $_ := set $byGroup $r.group (append (get $byGroup $r.group | default list) $r.resource | uniq) }}
{{- else if $r.group }}
{{- fail (printf "%s: give `resource` (the plural, e.g. widgets) so the chart can grant it, or set rbac.rules" $where) }}
{{- else if $r.groups }}
{{- range $r.groups }}
{{- if contains "*" . }}
{{- fail (printf "%s.groups: %q is a glob; the chart cannot grant exactly what it matches: set rbac.rules" $where .) }}
{{- end }}
{{- $_ := set $byGroup . (list "*") }}
{{- end }}
{{- else }}
{{- fail (printf "%s: discovery by categories or crdSelector cannot be granted exactly: set rbac.rules" $where) }}
{{- end }}
{{- end }}
{{- $rules := list }}
{{- if include "cr-status-exporter.crdDiscovery" . }}
{{- $rules = append $rules (dict "apiGroups" (list "apiextensions.k8s.io") "resources" (list "customresourcedefinitions") "verbs" (list "list" "watch")) }}
{{- end }}
{{- range $group := keys $byGroup | sortAlpha }}
{{- $resources := get $byGroup $group }}
{{- if has "*" $resources }}{{ $resources = list "*" }}{{ end }}
{{- $rules = append $rules (dict "apiGroups" (list $group) "resources" $resources "verbs" (list "list" "watch")) }}
{{- end }}
{{- /* Warning events about the watched objects (warningEvents, on unless config.warningEvents.enabled is false). */}}
{{- if ne ((.Values.config.warningEvents | default dict).enabled | toString) "false" }}
{{- $rules = append $rules (dict "apiGroups" (list "events.k8s.io") "resources" (list "events") "verbs" (list "list" "watch")) }}
{{- end }}
{{- toYaml $rules }}
{{- end }}
{{- end }}

{{/* A probe from its values: httpGet on `path`, HTTPS with web.tls, a TCP check when client certificates are required (the kubelet presents none). Call with (dict "ctx" $ "probe" <values> "path" <path>). */}}
{{- define "cr-status-exporter.probe" -}}
{{- $v := .ctx.Values }}
{{- if and $v.web.tls.enabled (has $v.web.tls.clientAuthType (list "RequireAnyClientCert" "RequireAndVerifyClientCert")) }}
tcpSocket:
  port: {{ include "cr-status-exporter.portName" .ctx }}
{{- else }}
httpGet:
  path: {{ .path }}
  port: {{ include "cr-status-exporter.portName" .ctx }}
  scheme: {{ $v.web.tls.enabled | ternary "HTTPS" "HTTP" }}
{{- end }}
{{- with .probe }}
{{- if .initialDelaySeconds }}
initialDelaySeconds: {{ .initialDelaySeconds }}
{{- end }}
periodSeconds: {{ .periodSeconds }}
timeoutSeconds: {{ .timeoutSeconds }}
failureThreshold: {{ .failureThreshold }}
{{- end }}
{{- end }}

{{/* The exporter container; in sidecar mode also printed by NOTES.txt for the operator's pod. */}}
{{- define "cr-status-exporter.container" -}}
{{- $sidecar := eq .Values.mode "sidecar" }}
{{- $dir := include "cr-status-exporter.secretsDir" . }}
name: cr-status-exporter
image: {{ include "cr-status-exporter.image" . }}
imagePullPolicy: {{ .Values.image.pullPolicy }}
{{- if $sidecar }}
restartPolicy: Always
{{- end }}
args:
  - --config
  - /etc/cr-status-exporter/config.yaml
{{- if and $sidecar .Values.sidecar.apiProxy.enabled }}
  - --api-proxy-listen
  - {{ .Values.sidecar.apiProxy.listen }}
  - --api-proxy-kubeconfig
  - {{ .Values.sidecar.apiProxy.kubeconfigPath }}
{{- end }}
{{- if and (not $sidecar) .Values.sharding.enabled }}
  # The shard: this pod's ordinal of its StatefulSet's replicas.
  - --pod
  - $(POD_NAME)
  - --pod-namespace
  - $(POD_NAMESPACE)
{{- end }}
{{- with .Values.extraArgs }}
{{- toYaml . | nindent 2 }}
{{- end }}
env:
  # The configuration may name the pod's namespace as ${POD_NAMESPACE}.
  - name: POD_NAMESPACE
    valueFrom:
      fieldRef:
        fieldPath: metadata.namespace
{{- if and (not $sidecar) .Values.sharding.enabled }}
  - name: POD_NAME
    valueFrom:
      fieldRef:
        fieldPath: metadata.name
{{- end }}
{{- with .Values.extraEnv }}
{{- toYaml . | nindent 2 }}
{{- end }}
ports:
  - name: {{ include "cr-status-exporter.portName" . }}
    containerPort: {{ .Values.service.port }}
    protocol: TCP
{{- if .Values.auditReceiver.enabled }}
  - name: audit
    containerPort: {{ .Values.auditReceiver.port }}
    protocol: TCP
{{- end }}
{{- if and $sidecar .Values.sidecar.apiProxy.enabled }}
# The operator's container starts once this succeeds: the proxy's kubeconfig is written by then.
startupProbe:
  exec:
    command: [node, -e, {{ printf "require('node:fs').accessSync('%s')" .Values.sidecar.apiProxy.kubeconfigPath | quote }}]
  periodSeconds: 1
  failureThreshold: 60
{{- else if .Values.startupProbe.enabled }}
startupProbe:
  {{- include "cr-status-exporter.probe" (dict "ctx" . "probe" .Values.startupProbe "path" "/healthz") | trim | nindent 2 }}
{{- end }}
{{- if .Values.livenessProbe.enabled }}
livenessProbe:
  {{- include "cr-status-exporter.probe" (dict "ctx" . "probe" .Values.livenessProbe "path" "/healthz") | trim | nindent 2 }}
{{- end }}
{{- if $sidecar }}
{{- /* A native sidecar's readiness counts toward the pod's Ready condition: never the exporter's sync state (/readyz). */}}
{{- if .Values.sidecar.readinessProbe.enabled }}
readinessProbe:
  {{- include "cr-status-exporter.probe" (dict "ctx" . "probe" .Values.sidecar.readinessProbe "path" "/healthz") | trim | nindent 2 }}
{{- end }}
{{- else if .Values.readinessProbe.enabled }}
readinessProbe:
  {{- include "cr-status-exporter.probe" (dict "ctx" . "probe" .Values.readinessProbe "path" "/readyz") | trim | nindent 2 }}
{{- end }}
resources:
  {{- toYaml ($sidecar | ternary .Values.sidecar.resources .Values.resources) | nindent 2 }}
securityContext:
  {{- if $sidecar }}
  {{- omit .Values.podSecurityContext "fsGroup" | merge (deepCopy .Values.securityContext) | toYaml | nindent 2 }}
  {{- else }}
  {{- toYaml .Values.securityContext | nindent 2 }}
  {{- end }}
volumeMounts:
  - name: cr-status-exporter-config
    mountPath: /etc/cr-status-exporter
    readOnly: true
{{- if and $sidecar .Values.sidecar.apiProxy.enabled }}
  - name: cr-status-exporter-api-proxy
    mountPath: {{ dir .Values.sidecar.apiProxy.kubeconfigPath }}
{{- else }}
  - name: cr-status-exporter-tmp
    mountPath: /tmp
{{- end }}
{{- range $mount := include "cr-status-exporter.secretMounts" . | fromYamlArray }}
  - name: {{ $mount.volume }}
    mountPath: {{ $dir }}/{{ $mount.dir }}
    readOnly: true
{{- end }}
{{- with .Values.extraVolumeMounts }}
{{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
The check-config init container (cluster mode): the exporter's own container
with `--check-config` in place of `--config`, the same flags, environment and
mounts (so flags, ${POD_NAMESPACE} and the files the configuration names are
checked as the exporter will read them), no ports and no probes. A
configuration the exporter refuses fails the pod at Init:Error with the
field-named problem in this container's log, before the exporter starts.
*/}}
{{- define "cr-status-exporter.checkConfigContainer" -}}
{{- $container := include "cr-status-exporter.container" . | fromYaml }}
{{- $args := list }}
{{- range $container.args }}
{{- $args = append $args (eq . "--config" | ternary "--check-config" .) }}
{{- end }}
{{- $_ := set $container "name" "check-config" }}
{{- $_ = set $container "args" $args }}
{{- omit $container "ports" "startupProbe" "livenessProbe" "readinessProbe" "restartPolicy" | toYaml }}
{{- end }}

{{/* The Secrets the chart mounts, as a YAML list of {volume, dir, secret}. */}}
{{- define "cr-status-exporter.secretMounts" -}}
{{- $mounts := list }}
{{- if .Values.web.tls.enabled }}
{{- $mounts = append $mounts (dict "volume" "cr-status-exporter-tls" "dir" "tls" "secret" .Values.web.tls.secretName) }}
{{- with .Values.web.tls.clientCASecretName }}
{{- $mounts = append $mounts (dict "volume" "cr-status-exporter-client-ca" "dir" "client-ca" "secret" .) }}
{{- end }}
{{- end }}
{{- if .Values.auditReceiver.enabled }}
{{- $mounts = append $mounts (dict "volume" "cr-status-exporter-audit-tls" "dir" "audit-tls" "secret" .Values.auditReceiver.tlsSecretName) }}
{{- with .Values.auditReceiver.tokenSecretName }}
{{- $mounts = append $mounts (dict "volume" "cr-status-exporter-audit-token" "dir" "audit-token" "secret" .) }}
{{- end }}
{{- with .Values.auditReceiver.clientCASecretName }}
{{- $mounts = append $mounts (dict "volume" "cr-status-exporter-audit-client-ca" "dir" "audit-client-ca" "secret" .) }}
{{- end }}
{{- end }}
{{- toYaml $mounts }}
{{- end }}

{{/* The pod's volumes (cluster mode; printed by NOTES.txt in sidecar mode). */}}
{{- define "cr-status-exporter.volumes" -}}
- name: cr-status-exporter-config
  configMap:
    name: {{ include "cr-status-exporter.fullname" . }}-config
{{- if and (eq .Values.mode "sidecar") .Values.sidecar.apiProxy.enabled }}
- name: cr-status-exporter-api-proxy
  emptyDir:
    sizeLimit: 1Mi
{{- else }}
- name: cr-status-exporter-tmp
  emptyDir:
    sizeLimit: 16Mi
{{- end }}
{{- range $mount := include "cr-status-exporter.secretMounts" . | fromYamlArray }}
- name: {{ $mount.volume }}
  secret:
    secretName: {{ $mount.secret }}
{{- end }}
{{- with .Values.extraVolumes }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Settings the exporter reads only at start-up: the pod rolls when they change. */}}
{{- define "cr-status-exporter.restartChecksum" -}}
{{- $config := include "cr-status-exporter.config" . | fromYaml }}
{{- list (pick $config "listen" "apiProxy" "auditReceiver" "webConfigFile" "metricsAuth" "metricPrefix") .Values.web | toJson | sha256sum | trunc 16 }}
{{- end }}
