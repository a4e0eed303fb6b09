{{/*
Names, labels and the pieces every service's pod shares: one definition each, so the
gateway, the engines and the clock cannot drift apart.
*/}}

{{- define "colosseum.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "colosseum.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Labels of the whole release (selects every pod of it). */}}
{{- define "colosseum.releaseSelector" -}}
app.kubernetes.io/name: {{ include "colosseum.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "colosseum.labels" -}}
{{ include "colosseum.releaseSelector" . }}
{{ include "colosseum.commonLabels" . }}
{{- end -}}

{{/* The labels beside the selector ones. */}}
{{- define "colosseum.commonLabels" -}}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: colosseum
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* The selector of one component: (dict "root" $ "component" "gateway" "family" "") */}}
{{- define "colosseum.selector" -}}
{{ include "colosseum.releaseSelector" .root }}
app.kubernetes.io/component: {{ .component }}
{{- if .family }}
colosseum.dev/family: {{ .family }}
{{- end }}
{{- end -}}

{{/* The image of a component: its own imageTag when set (an upgrade rolled one component
at a time: engines, then the clock, then the gateways), else image.tag, else appVersion. */}}
{{- define "colosseum.image" -}}
{{- $root := .root -}}
{{- printf "%s:%s" $root.Values.image.repository (.tag | default $root.Values.image.tag | default $root.Chart.AppVersion) -}}
{{- end -}}

{{- define "colosseum.tokenSecretName" -}}
{{- default (printf "%s-internal-token" (include "colosseum.fullname" .)) .Values.internalToken.existingSecret -}}
{{- end -}}

{{- define "colosseum.tokenSecretKey" -}}
{{- if .Values.internalToken.existingSecret -}}{{ .Values.internalToken.existingSecretKey }}{{- else -}}token{{- end -}}
{{- end -}}

{{- define "colosseum.redisSecretName" -}}
{{- if and .Values.redis.existingSecret (not .Values.redis.internal.enabled) -}}
{{- .Values.redis.existingSecret -}}
{{- else -}}
{{- printf "%s-redis-url" (include "colosseum.fullname" .) -}}
{{- end -}}
{{- end -}}

{{- define "colosseum.redisSecretKey" -}}
{{- if and .Values.redis.existingSecret (not .Values.redis.internal.enabled) -}}{{ .Values.redis.existingSecretKey }}{{- else -}}url{{- end -}}
{{- end -}}

{{/* The value of the chart-made Redis Secret: the URL, the sentinels, or the seed nodes. */}}
{{- define "colosseum.redisUrlValue" -}}
{{- if .Values.redis.internal.enabled -}}
{{- printf "redis://%s-redis:6379/0" (include "colosseum.fullname" .) -}}
{{- else if eq .Values.redis.mode "cluster" -}}
{{- join "," .Values.redis.clusterUrls -}}
{{- else if eq .Values.redis.mode "sentinel" -}}
{{- join "," .Values.redis.sentinel.urls -}}
{{- else -}}
{{- .Values.redis.url -}}
{{- end -}}
{{- end -}}

{{/* The archive (PostgreSQL) is configured: "true", or empty. */}}
{{- define "colosseum.archiveEnabled" -}}
{{- if or .Values.archive.existingSecret .Values.archive.url -}}true{{- end -}}
{{- end -}}

{{/* Where the archive's URL is, as the gateway, the match-maker and the engines read it:
a file from the Secret you manage (ARCHIVE_URL_FILE), or ARCHIVE_URL from the chart's own
Secret. */}}
{{- define "colosseum.archiveEnv" -}}
{{- if .Values.archive.existingSecret }}
- name: ARCHIVE_URL_FILE
  value: /var/run/colosseum/archive/url
{{- else if .Values.archive.url }}
- name: ARCHIVE_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "colosseum.fullname" . }}-archive-url
      key: url
{{- end }}
{{- end -}}

{{/* Refuses values that would start services on no store, or on a store they cannot use. */}}
{{- define "colosseum.validate" -}}
{{- $r := .Values.redis -}}
{{- if lt (int .Values.terminationGracePeriodSeconds) (add (int .Values.preStopSleepSeconds) 30 | int) -}}
{{- fail (printf "terminationGracePeriodSeconds (%d) must be at least preStopSleepSeconds (%d) plus the services' 30 s drain" (int .Values.terminationGracePeriodSeconds) (int .Values.preStopSleepSeconds)) -}}
{{- end -}}
{{- if and .Values.monitoring.serviceMonitor.enabled .Values.networkPolicy.enabled (empty .Values.networkPolicy.metricsFrom) -}}
{{- fail "monitoring.serviceMonitor.enabled with networkPolicy.enabled needs networkPolicy.metricsFrom (where Prometheus runs): the NetworkPolicy would block its scrapes" -}}
{{- end -}}
{{- if and $r.internal.enabled (ne $r.mode "single") -}}
{{- fail "redis.internal.enabled runs a single Redis: set redis.mode=single" -}}
{{- end -}}
{{- if and (eq $r.mode "sentinel") (not $r.sentinel.master) -}}
{{- fail "redis.mode=sentinel needs redis.sentinel.master: the name the sentinels know the master by" -}}
{{- end -}}
{{- if not (or $r.internal.enabled $r.existingSecret (and (eq $r.mode "single") $r.url) (and (eq $r.mode "sentinel") $r.sentinel.urls) (and (eq $r.mode "cluster") $r.clusterUrls)) -}}
{{- fail "no Redis: set redis.url (mode single), redis.sentinel.urls (mode sentinel), redis.clusterUrls (mode cluster), redis.existingSecret, or redis.internal.enabled=true" -}}
{{- end -}}
{{- $seen := dict -}}
{{- range .Values.engines.families -}}
{{- if hasKey $seen .name -}}{{- fail (printf "engines.families lists %s twice" .name) -}}{{- end -}}
{{- $_ := set $seen .name true -}}
{{- end -}}
{{- range list "goofspiel" "placement" "duel" -}}
{{- if not (hasKey $seen .) -}}{{- fail (printf "engines.families must list %s: the gateway and the clock send its matches to it" .) -}}{{- end -}}
{{- end -}}
{{- end -}}

{{/* A family's settings: its entry over engines.defaults. */}}
{{- define "colosseum.family" -}}
{{- mergeOverwrite (deepCopy .root.Values.engines.defaults) (deepCopy .family) | toYaml -}}
{{- end -}}

{{/*
The engines' URLs, as the gateway and the clock read them: the family's Service
(addressing: service), or each of its pods by name (addressing: pods), so that the
gateway and the clock send each match to the same replica.
*/}}
{{- define "colosseum.engineEnv" -}}
{{- $root := . -}}
{{- range .Values.engines.families }}
{{- $f := include "colosseum.family" (dict "root" $root "family" .) | fromYaml -}}
{{- $name := printf "%s-engine-%s" (include "colosseum.fullname" $root) $f.name -}}
{{- $urls := list (printf "http://%s:50061" $name) -}}
{{- if eq $f.addressing "pods" -}}
{{- $urls = list -}}
{{- range $i := until (int $f.replicas) -}}
{{- $urls = append $urls (printf "http://%s-%d.%s:50061" $name $i $name) -}}
{{- end -}}
{{- end }}
- name: ENGINE_{{ upper $f.name }}_URL
  value: {{ join "," $urls | quote }}
{{- end }}
{{- end -}}

{{/* Env every service reads: logs, traces, the secret, the store, metrics. */}}
{{- define "colosseum.commonEnv" -}}
- name: RUST_LOG
  value: {{ .Values.logLevel | quote }}
- name: LOG_FORMAT
  value: {{ .Values.logFormat | quote }}
{{- if .Values.otel.endpoint }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ .Values.otel.endpoint | quote }}
{{- end }}
- name: INTERNAL_TOKEN_FILE
  value: /var/run/colosseum/internal-token/token
- name: {{ if eq .Values.redis.mode "cluster" }}REDIS_CLUSTER_URLS{{ else if eq .Values.redis.mode "sentinel" }}REDIS_SENTINEL_URLS{{ else }}REDIS_URL{{ end }}
  valueFrom:
    secretKeyRef:
      name: {{ include "colosseum.redisSecretName" . }}
      key: {{ include "colosseum.redisSecretKey" . }}
{{- if eq .Values.redis.mode "sentinel" }}
- name: REDIS_SENTINEL_MASTER
  value: {{ .Values.redis.sentinel.master | quote }}
{{- end }}
- name: METRICS_ADDR
  value: "0.0.0.0:9100"
{{- end -}}

{{/*
A service's Deployment. Takes a dict:
  root, name, component, family ("" unless an engine), binary, grpcPort, env (YAML list),
  replicas, autoscaling, resources, archive (true: it reads the archive, when one is set).
*/}}
{{- define "colosseum.deployment" -}}
{{- $root := .root -}}
{{- $v := $root.Values -}}
{{- $sel := include "colosseum.selector" (dict "root" $root "component" .component "family" .family) -}}
{{- $archive := and .archive (include "colosseum.archiveEnabled" $root) -}}
apiVersion: apps/v1
kind: {{ .kind | default "Deployment" }}
metadata:
  name: {{ .name }}
  labels:
    {{- include "colosseum.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ .component }}
    {{- if .family }}
    colosseum.dev/family: {{ .family }}
    {{- end }}
spec:
  {{- if not .autoscaling }}
  replicas: {{ .replicas }}
  {{- end }}
  revisionHistoryLimit: 5
  {{- if eq (.kind | default "Deployment") "StatefulSet" }}
  # Stable pod names (<name>-0, -1...) that the gateway and the clock list one by one.
  serviceName: {{ .name }}
  podManagementPolicy: Parallel
  updateStrategy:
    type: RollingUpdate
  {{- else }}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      # A new pod is ready before an old one stops: capacity never drops in a rollout.
      maxSurge: 1
      maxUnavailable: 0
  {{- end }}
  selector:
    matchLabels:
      {{- $sel | nindent 6 }}
  template:
    metadata:
      labels:
        {{- $sel | nindent 8 }}
        {{- include "colosseum.commonLabels" $root | nindent 8 }}
        colosseum.dev/metrics: "true"
        {{- with $v.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        # A new Redis URL in values restarts the pods (they read it at start). Not the
        # internal secret: changing it is a rotation (docs/operations.md), not a rollout.
        checksum/redis: {{ printf "%s/%s/%s" (include "colosseum.redisSecretName" $root) (include "colosseum.redisSecretKey" $root) (include "colosseum.redisUrlValue" $root) | sha256sum | trunc 16 | quote }}
        {{- if $archive }}
        # Likewise the archive's URL, or the Secret and key it is read from.
        checksum/archive: {{ ternary (printf "secret/%s/%s" $v.archive.existingSecret $v.archive.secretKey) (printf "url/%s" $v.archive.url) (not (empty $v.archive.existingSecret)) | sha256sum | trunc 16 | quote }}
        {{- end }}
        {{- with $v.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "colosseum.fullname" $root }}
      automountServiceAccountToken: false
      enableServiceLinks: false
      terminationGracePeriodSeconds: {{ $v.terminationGracePeriodSeconds }}
      securityContext:
        {{- toYaml $v.podSecurityContext | nindent 8 }}
      {{- with $v.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- if $v.topologySpread.enabled }}
      topologySpreadConstraints:
        {{- range $v.topologySpread.topologyKeys }}
        - maxSkew: {{ $v.topologySpread.maxSkew }}
          topologyKey: {{ . }}
          whenUnsatisfiable: {{ $v.topologySpread.whenUnsatisfiable }}
          labelSelector:
            matchLabels:
              {{- $sel | nindent 14 }}
        {{- end }}
      {{- end }}
      {{- with $v.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
        - name: {{ .component }}
          image: {{ include "colosseum.image" (dict "root" $root "tag" .imageTag) }}
          imagePullPolicy: {{ $v.image.pullPolicy }}
          command: [{{ printf "/usr/local/bin/%s" .binary | quote }}]
          ports:
            - name: grpc
              containerPort: {{ .grpcPort }}
              protocol: TCP
            - name: metrics
              containerPort: 9100
              protocol: TCP
          env:
            {{- .env | nindent 12 }}
            {{- include "colosseum.commonEnv" $root | nindent 12 }}
            {{- if $archive }}
            {{- include "colosseum.archiveEnv" $root | trim | nindent 12 }}
            {{- end }}
          # Up once the store answered and the gRPC server listens (Redis may be slow to
          # answer at start: up to a minute).
          startupProbe:
            grpc:
              port: {{ .grpcPort }}
            periodSeconds: 2
            failureThreshold: 30
          # grpc.health.v1: the process serves.
          livenessProbe:
            grpc:
              port: {{ .grpcPort }}
            periodSeconds: 10
            timeoutSeconds: 2
            failureThreshold: 3
          # /readyz: the event store answers; out of the Service while it does not.
          readinessProbe:
            httpGet:
              path: /readyz
              port: metrics
            periodSeconds: 5
            timeoutSeconds: 2
            failureThreshold: 2
          lifecycle:
            preStop:
              sleep:
                seconds: {{ $v.preStopSleepSeconds }}
          resources:
            {{- toYaml .resources | nindent 12 }}
          securityContext:
            {{- toYaml $v.securityContext | nindent 12 }}
          volumeMounts:
            - name: internal-token
              mountPath: /var/run/colosseum/internal-token
              readOnly: true
            - name: tmp
              mountPath: /tmp
            {{- if and $archive $v.archive.existingSecret }}
            - name: archive-url
              mountPath: /var/run/colosseum/archive
              readOnly: true
            {{- end }}
      volumes:
        - name: internal-token
          secret:
            secretName: {{ include "colosseum.tokenSecretName" $root }}
            items:
              - key: {{ include "colosseum.tokenSecretKey" $root }}
                path: token
        - name: tmp
          emptyDir:
            sizeLimit: 64Mi
        {{- if and $archive $v.archive.existingSecret }}
        - name: archive-url
          secret:
            secretName: {{ $v.archive.existingSecret }}
            items:
              - key: {{ $v.archive.secretKey }}
                path: url
        {{- end }}
{{- end -}}

{{/* An HPA on CPU: (dict "root" $ "name" ... "component" ... "autoscaling" ...) */}}
{{- define "colosseum.hpa" -}}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ .name }}
  labels:
    {{- include "colosseum.labels" .root | nindent 4 }}
    app.kubernetes.io/component: {{ .component }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ .name }}
  minReplicas: {{ .autoscaling.minReplicas }}
  maxReplicas: {{ .autoscaling.maxReplicas }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ .autoscaling.targetCPUUtilizationPercentage }}
  behavior:
    scaleDown:
      # Scaling down moves matches to other replicas (cold caches): slowly.
      stabilizationWindowSeconds: 300
      policies:
        - type: Pods
          value: 1
          periodSeconds: 60
{{- end -}}

{{/* A PDB: (dict "root" $ "name" ... "component" ... "family" ... "pdb" ...) */}}
{{- define "colosseum.pdb" -}}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ .name }}
  labels:
    {{- include "colosseum.labels" .root | nindent 4 }}
    app.kubernetes.io/component: {{ .component }}
spec:
  maxUnavailable: {{ .pdb.maxUnavailable }}
  selector:
    matchLabels:
      {{- include "colosseum.selector" (dict "root" .root "component" .component "family" .family) | nindent 6 }}
{{- end -}}

{{/* The NetworkPolicy rule of every metrics port: the release itself and networkPolicy.metricsFrom. */}}
{{- define "colosseum.metricsRule" -}}
- ports:
    - port: metrics
      protocol: TCP
  from:
    - podSelector:
        matchLabels:
          {{- include "colosseum.releaseSelector" . | nindent 10 }}
    {{- with .Values.networkPolicy.metricsFrom }}
    {{- toYaml . | nindent 4 }}
    {{- end -}}
{{- end -}}
