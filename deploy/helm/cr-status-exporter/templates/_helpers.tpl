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

{{/* app.kubernetes.io/name is the ServiceMonitor's jobLabel: job="cr-status-exporter" whatever the release is called. */}}
{{- define "cr-status-exporter.selectorLabels" -}}
app.kubernetes.io/name: {{ include "cr-status-exporter.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "cr-status-exporter.labels" -}}
{{ include "cr-status-exporter.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
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
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{- define "cr-status-exporter.validateMode" -}}
{{- if not (has .Values.mode (list "cluster" "sidecar")) }}
{{- fail (printf "mode: expected cluster or sidecar, got %q" .Values.mode) }}
{{- end }}
{{- if not (has .Values.rbac.scope (list "cluster" "namespace")) }}
{{- fail (printf "rbac.scope: expected cluster or namespace, got %q" .Values.rbac.scope) }}
{{- end }}
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

{{/*
The configuration file. listen defaults to 0.0.0.0:<service.port>; with
namespaced RBAC, each resource without `namespaces` is limited to the Roles'
namespaces (cluster-wide lists would be forbidden).
*/}}
{{- define "cr-status-exporter.config" -}}
{{- $config := deepCopy .Values.config }}
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
{{- toYaml $rules }}
{{- end }}
{{- end }}

{{/* The exporter container; in sidecar mode also printed by NOTES.txt for the operator's pod. */}}
{{- define "cr-status-exporter.container" -}}
name: cr-status-exporter
image: {{ include "cr-status-exporter.image" . }}
imagePullPolicy: {{ .Values.image.pullPolicy }}
{{- if eq .Values.mode "sidecar" }}
restartPolicy: Always
{{- end }}
args:
  - --config
  - /etc/cr-status-exporter/config.yaml
{{- if and (eq .Values.mode "sidecar") .Values.sidecar.apiProxy.enabled }}
  - --api-proxy-listen
  - {{ .Values.sidecar.apiProxy.listen }}
  - --api-proxy-kubeconfig
  - {{ .Values.sidecar.apiProxy.kubeconfigPath }}
{{- end }}
{{- with .Values.extraArgs }}
{{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.extraEnv }}
env:
{{- toYaml . | nindent 2 }}
{{- end }}
ports:
  - name: {{ eq .Values.mode "sidecar" | ternary "cr-metrics" "metrics" }}
    containerPort: {{ .Values.service.port }}
    protocol: TCP
{{- if and (eq .Values.mode "sidecar") .Values.sidecar.apiProxy.enabled }}
startupProbe:
  exec:
    command: [node, -e, {{ printf "require('node:fs').accessSync('%s')" .Values.sidecar.apiProxy.kubeconfigPath | quote }}]
  periodSeconds: 1
  failureThreshold: 60
{{- else }}
startupProbe:
  httpGet:
    path: /healthz
    port: {{ eq .Values.mode "sidecar" | ternary "cr-metrics" "metrics" }}
  periodSeconds: 2
  failureThreshold: 30
{{- end }}
livenessProbe:
  httpGet:
    path: /healthz
    port: {{ eq .Values.mode "sidecar" | ternary "cr-metrics" "metrics" }}
  periodSeconds: 10
  timeoutSeconds: 5
readinessProbe:
  httpGet:
    path: /readyz
    port: {{ eq .Values.mode "sidecar" | ternary "cr-metrics" "metrics" }}
  periodSeconds: 10
  timeoutSeconds: 5
resources:
  {{- toYaml .Values.resources | nindent 2 }}
securityContext:
  {{- if eq .Values.mode "sidecar" }}
  {{- omit .Values.podSecurityContext "fsGroup" | merge (deepCopy .Values.securityContext) | toYaml | nindent 2 }}
  {{- else }}
  {{- toYaml .Values.securityContext | nindent 2 }}
  {{- end }}
volumeMounts:
  - name: cr-status-exporter-config
    mountPath: /etc/cr-status-exporter
    readOnly: true
{{- if and (eq .Values.mode "sidecar") .Values.sidecar.apiProxy.enabled }}
  - name: cr-status-exporter-api-proxy
    mountPath: {{ dir .Values.sidecar.apiProxy.kubeconfigPath }}
{{- else }}
  - name: tmp
    mountPath: /tmp
{{- end }}
{{- end }}
