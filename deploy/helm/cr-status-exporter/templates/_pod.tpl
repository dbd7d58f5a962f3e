{{/* The exporter's pod (cluster mode): the Deployment's and, sharded, the StatefulSet's template. */}}
{{- define "cr-status-exporter.podTemplate" -}}
metadata:
  labels:
    {{- include "cr-status-exporter.selectorLabels" . | nindent 4 }}
    {{- with .Values.commonLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
    {{- with .Values.podLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  annotations:
    # The exporter reloads config.yaml and its certificates by itself; these settings are read at start-up only.
    checksum/start-up-settings: {{ include "cr-status-exporter.restartChecksum" . }}
    {{- with .Values.podAnnotations }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  serviceAccountName: {{ include "cr-status-exporter.serviceAccountName" . }}
  automountServiceAccountToken: {{ .Values.serviceAccount.automountServiceAccountToken }}
  {{- with include "cr-status-exporter.imagePullSecrets" . | trim }}
  imagePullSecrets:
    {{- . | nindent 4 }}
  {{- end }}
  {{- with .Values.priorityClassName }}
  priorityClassName: {{ . }}
  {{- end }}
  securityContext:
    {{- toYaml .Values.podSecurityContext | nindent 4 }}
  {{- if .Values.checkConfig.enabled }}
  initContainers:
    - {{- include "cr-status-exporter.checkConfigContainer" . | trim | nindent 6 }}
  {{- end }}
  containers:
    - {{- include "cr-status-exporter.container" . | trim | nindent 6 }}
  volumes:
    {{- include "cr-status-exporter.volumes" . | nindent 4 }}
  {{- with .Values.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.affinity }}
  affinity:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.topologySpreadConstraints }}
  topologySpreadConstraints:
    {{- range . }}
    - {{- toYaml (hasKey . "labelSelector" | ternary . (merge (dict "labelSelector" (dict "matchLabels" (include "cr-status-exporter.selectorLabels" $ | fromYaml))) .)) | nindent 6 }}
    {{- end }}
  {{- end }}
{{- end }}
