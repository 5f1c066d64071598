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

{{/* Fails the render, saying what to set, when the bot could not start. Redis is required:
     replicas without a shared one would each post the digest and fetch their own tokens. */}}
{{- define "roombot.check" -}}
{{- range $name := list "MEET_API_URL" "MEET_CLIENT_ID" -}}
{{- if not (index $.Values.config $name) -}}
{{- fail (printf "set config.%s" $name) -}}
{{- end -}}
{{- end -}}
{{- if not .Values.secrets.existingSecret -}}
{{- range $name := list "SLACK_BOT_TOKEN" "MEET_CLIENT_SECRET" -}}
{{- if not (index $.Values.secrets.values $name) -}}
{{- fail (printf "set secrets.values.%s, or name a Secret holding it in secrets.existingSecret" $name) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $redis := .Values.redis -}}
{{- if not (has $redis.mode (list "url" "cluster" "sentinel")) -}}
{{- fail (printf "redis.mode must be url, cluster or sentinel, not %q" $redis.mode) -}}
{{- end -}}
{{- if and (eq $redis.mode "sentinel") (not $redis.sentinels) -}}
{{- fail "redis.mode is sentinel: list the Sentinels in redis.sentinels (host:port)" -}}
{{- end -}}
{{- if and (ne $redis.mode "sentinel") (not $redis.url) (not .Values.secrets.existingSecret) (not (hasKey .Values.secrets.values "REDIS_URL")) -}}
{{- fail "a shared Redis is required: set redis.url, or REDIS_URL in the Secret" -}}
{{- end -}}
{{- end -}}
