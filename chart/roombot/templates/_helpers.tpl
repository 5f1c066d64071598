{{- define "roombot.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "roombot.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "roombot.labels" -}}
{{ include "roombot.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "roombot.secretName" -}}
{{- .Values.secrets.existingSecret | default (include "roombot.fullname" .) -}}
{{- end -}}

{{/* Whether the release installs into many workspaces by OAuth: SLACK_CLIENT_ID in config. */}}
{{- define "roombot.oauth" -}}
{{- if .Values.config.SLACK_CLIENT_ID -}}true{{- end -}}
{{- end -}}

{{/* The serve processes of a pod (config.SERVE_PROCESSES). */}}
{{- define "roombot.processes" -}}
{{- .Values.config.SERVE_PROCESSES | default 1 | int -}}
{{- end -}}

{{/* The fewest pods the release runs. */}}
{{- define "roombot.minReplicas" -}}
{{- if .Values.autoscaling.enabled -}}{{ .Values.autoscaling.minReplicas | int }}{{- else -}}{{ .Values.replicaCount | int }}{{- end -}}
{{- end -}}

{{/* Fails the render, saying what to set, when the bot could not start, or when a value would land
     where it must not. Redis is required: replicas without a shared one would each post the digest
     and fetch their own tokens. */}}
{{- define "roombot.check" -}}
{{- range $name := list "MEET_API_URL" "MEET_CLIENT_ID" -}}
{{- if not (index $.Values.config $name) -}}
{{- fail (printf "set config.%s" $name) -}}
{{- end -}}
{{- end -}}
{{- /* the bot reads its settings whatever their case (slack_app_token is SLACK_APP_TOKEN) */ -}}
{{- range $name, $value := .Values.config -}}
{{- if has (upper $name) (list "SLACK_BOT_TOKEN" "SLACK_SIGNING_SECRET" "SLACK_APP_TOKEN" "SLACK_CLIENT_SECRET" "MEET_CLIENT_SECRET" "DS_API_TOKEN" "ALBERT_API_KEY" "TOKEN_ENCRYPTION_KEY") -}}
{{- fail (printf "config.%s is a secret: it would land in the ConfigMap; put it in secrets.values.%s (or in secrets.existingSecret)" $name (upper $name)) -}}
{{- end -}}
{{- if has (upper $name) (list "PORT" "HOST" "METRICS_PORT" "REDIS_URL" "REDIS_CLUSTER" "REDIS_SENTINELS" "REDIS_SENTINEL_MASTER" "DATA_DIR") -}}
{{- fail (printf "config.%s is set by the chart (service, metrics, redis): remove it from config" $name) -}}
{{- end -}}
{{- end -}}
{{- if not .Values.secrets.existingSecret -}}
{{- $secrets := .Values.secrets.values -}}
{{- if include "roombot.oauth" . -}}
{{- if index $secrets "SLACK_BOT_TOKEN" -}}
{{- fail "config.SLACK_CLIENT_ID installs into many workspaces by OAuth: leave secrets.values.SLACK_BOT_TOKEN unset (with it the bot serves one workspace)" -}}
{{- end -}}
{{- range $name := list "SLACK_CLIENT_SECRET" "TOKEN_ENCRYPTION_KEY" "MEET_CLIENT_SECRET" -}}
{{- if not (index $secrets $name) -}}
{{- fail (printf "set secrets.values.%s, or name a Secret holding it in secrets.existingSecret" $name) -}}
{{- end -}}
{{- end -}}
{{- else -}}
{{- range $name := list "SLACK_BOT_TOKEN" "MEET_CLIENT_SECRET" -}}
{{- if not (index $secrets $name) -}}
{{- fail (printf "set secrets.values.%s, or name a Secret holding it in secrets.existingSecret" $name) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if not (or (index $secrets "SLACK_SIGNING_SECRET") (index $secrets "SLACK_APP_TOKEN")) -}}
{{- fail "set secrets.values.SLACK_SIGNING_SECRET (HTTP mode), or SLACK_APP_TOKEN (Socket Mode)" -}}
{{- end -}}
{{- end -}}
{{- $redis := .Values.redis -}}
{{- if not (has $redis.mode (list "url" "cluster" "sentinel")) -}}
{{- fail (printf "redis.mode must be url, cluster or sentinel, not %q" $redis.mode) -}}
{{- end -}}
{{- if and (eq $redis.mode "sentinel") (not $redis.sentinels) -}}
{{- fail "redis.mode is sentinel: list the Sentinels in redis.sentinels (host:port)" -}}
{{- end -}}
{{- if $redis.url -}}
{{- $url := urlParse $redis.url -}}
{{- if or (contains ":" $url.userinfo) (regexMatch "(^|&)password=" $url.query) -}}
{{- fail "redis.url holds a password: it would land in the ConfigMap; put the URL in secrets.values.REDIS_URL (or in secrets.existingSecret) and leave redis.url empty" -}}
{{- end -}}
{{- end -}}
{{- if and (ne $redis.mode "sentinel") (not $redis.url) (not .Values.secrets.existingSecret) (not (hasKey .Values.secrets.values "REDIS_URL")) -}}
{{- fail "a shared Redis is required: set redis.url, or REDIS_URL in the Secret" -}}
{{- end -}}
{{- end -}}
