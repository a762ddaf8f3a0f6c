#!/usr/bin/env bash
# Writes what a secured Atoll cluster needs into DIR (created if missing):
#
#   ca.crt, ca.key      the cluster's CA (keep ca.key off the members)
#   tls.crt, tls.key    a member certificate for HOSTS (serving and dialing)
#   cluster-secret      the secret members prove to each other
#   admin.password      the password of the user "admin" (every action)
#   app.password        the password of the user "app" (maps and SQL)
#   ops.token           a bearer token with the admin action (CLI, profiles)
#   member.yaml         the members' configuration: TLS, cluster secret and
#                       the security section with the users' hashes, reading
#                       the files above under /etc/atoll/tls and
#                       /etc/atoll/secret, where deploy/compose/compose-secure.yaml
#                       and deploy/k8s/secure/statefulset.yaml mount them.
#
# Usage: deploy/make-secrets.sh DIR HOST[,HOST...]
# HOSTS are the names (and addresses) clients and members reach members by.
# $ATOLL names the atoll binary to use (default: built from this repository).
# The files members read are made readable by every user, so that the
# containers' non-root user can read bind-mounted files: keep DIR private.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 DIR HOST[,HOST...]" >&2; exit 2; }
dir=$1
hosts=$2
atoll=${ATOLL:-}
if [ -z "$atoll" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	(cd "$(dirname "$0")/.." && go build -o "$tmp/atoll" ./cmd/atoll)
	atoll=$tmp/atoll
fi
mkdir -p "$dir"
"$atoll" security create-ca --out "$dir" >/dev/null
"$atoll" security create-cert --ca-dir "$dir" --name tls --hosts "$hosts" --out "$dir" >/dev/null
secret() { head -c "$1" /dev/urandom | base64 | tr -d '\n/+='; }
umask 077
secret 48 >"$dir/cluster-secret"
secret 24 >"$dir/admin.password"
secret 24 >"$dir/app.password"
"$atoll" security new-token >"$dir/ops.token"
admin_hash=$("$atoll" security hash-password --password-file "$dir/admin.password")
app_hash=$("$atoll" security hash-password --password-file "$dir/app.password")
token_hash=$("$atoll" security hash-token --token-file "$dir/ops.token")
cat >"$dir/member.yaml" <<YAML
# A secured member (written by deploy/make-secrets.sh).
cluster-name: atoll
tls:
  cert-file: /etc/atoll/tls/tls.crt
  key-file: /etc/atoll/tls/tls.key
  ca-file: /etc/atoll/tls/ca.crt
cluster-secret-file: /etc/atoll/secret/cluster-secret
security:
  users:
    - {name: admin, password-hash: '$admin_hash', roles: [admin]}
    - {name: app, password-hash: '$app_hash', roles: [app]}
  tokens:
    - {name: ops, token-hash: '$token_hash', roles: [admin]}
  roles:
    admin: {maps: {"*": [all]}, cluster: [sql, admin]}
    app: {maps: {"*": [create, put, read, remove, listen, index]}, cluster: [sql]}
YAML
chmod 0644 "$dir/ca.crt" "$dir/tls.crt" "$dir/tls.key" "$dir/cluster-secret" "$dir/member.yaml"
echo "wrote $dir: ca.crt ca.key tls.crt tls.key cluster-secret admin.password app.password ops.token member.yaml"
