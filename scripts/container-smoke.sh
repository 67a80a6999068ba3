#!/usr/bin/env bash
# The container smoke test (CI runs it after the test suites; docs/deployment.md, "Containers"). With podman, as
# root, on a machine that reaches the npm registry and Debian's mirror but no container registry:
#
#  1. a Debian bookworm base image from Debian's packages (debootstrap, kept in /var/tmp between runs), imported
#     as localhost/debian:bookworm; the image (Dockerfile) and a CI-only PostgreSQL (ci/postgres.Containerfile)
#     are built on it;
#  2. the image alone on SQLite with a volume at /data: ready, a workspace, number and key made with the CLI
#     inside the container, a code sent over HTTP, read from the outbox, checked (verified); SIGTERM, exit 0, and
#     the volume's files owned by uid 10001, the directory 0700 and every file 0600;
#  3. compose.yaml (with ci/compose.ci.yaml's PostgreSQL) under podman-compose: two replicas on one database; a
#     code sent through replica 1 is read and checked through replica 2.
# Everything it starts is removed on exit, whatever happens. Its own podman storage lives in .tmp/ (images and
# build cache stay there for the next run); nothing touches the machine's default podman storage.
#
# The machine's quirks are handled here, not in the Dockerfile: crun refuses the hybrid cgroup v1/v2 layout
# (runc does not), podman cannot raise the container's rlimits above its own (no CAP_SYS_RESOURCE), and the
# machine's TLS-inspecting egress proxy is trusted through its CA certificates copied into the base image.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=$ROOT/.tmp/container-smoke
CACHE=/var/tmp/phone-verify-container-smoke
[ -d /var/tmp ] || CACHE=$WORK/cache
mkdir -p "$WORK" "$CACHE"
LOG=$WORK/log
: >"$LOG"
started=$SECONDS
step() { printf '[container-smoke %3ds] %s\n' "$((SECONDS - started))" "$*"; }
fail() {
  echo "container-smoke: FAILED: $*" >&2
  echo "--- last lines of $LOG:" >&2
  tail -n 40 "$LOG" >&2 || true
  exit 1
}

# Podman's configuration and storage for this script alone.
nofile=$(ulimit -Hn)
[ "$nofile" = unlimited ] && nofile=1048576
nproc=$(ulimit -Hu)
[ "$nproc" = unlimited ] || [ "$nproc" -gt 32768 ] && nproc=32768
cat >"$WORK/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
cat >"$WORK/storage.conf" <<EOF
[storage]
driver = "overlay"
graphroot = "$WORK/storage"
runroot = "$WORK/run"
EOF
export CONTAINERS_CONF=$WORK/containers.conf CONTAINERS_STORAGE_CONF=$WORK/storage.conf

IMAGE=localhost/phone-verify:smoke
PG_IMAGE=localhost/phone-verify-postgres:ci
BASE=localhost/debian:bookworm
SQLITE_CTR=phone-verify-smoke-sqlite
SQLITE_VOL=phone-verify-smoke-data
PROJECT=phone-verify-smoke
compose() {
  PHONE_VERIFY_IMAGE=$IMAGE podman-compose -p "$PROJECT" -f compose.yaml -f ci/compose.ci.yaml "$@" >>"$LOG" 2>&1
}
cleanup() {
  set +e
  podman rm -f -t 0 "$SQLITE_CTR" >/dev/null 2>&1
  podman volume rm -f "$SQLITE_VOL" >/dev/null 2>&1
  [ -n "${PHONE_VERIFY_SECRET:-}" ] && compose down -v -t 10
  podman rm -f -t 0 $(podman ps -aq --filter "label=io.podman.compose.project=$PROJECT") >/dev/null 2>&1
  podman volume rm -f $(podman volume ls -q --filter "label=io.podman.compose.project=$PROJECT") >/dev/null 2>&1
  podman network rm -f "${PROJECT}_default" >/dev/null 2>&1
  # The replicas' anonymous /data volumes (this storage is the script's own).
  podman volume prune -f >/dev/null 2>&1
  step "cleaned up"
}
trap cleanup EXIT

# A free TCP port on the host (other services and test runs share this machine).
free_port() {
  local port
  while :; do
    port=$((20000 + RANDOM % 20000))
    ss -Hltn "sport = :$port" | grep -q . || { echo "$port"; return; }
  done
}
# The value at a path (".id", "[0].body") of the JSON on stdin (the machine's node, any version, reads it).
json() { node -e 'let s="";process.stdin.on("data",(d)=>{s+=d}).on("end",()=>{console.log(new Function("v",`return v${process.argv[1]}`)(JSON.parse(s)))})' "$1"; }
wait_ready() {
  local url=$1 deadline=$((SECONDS + $2))
  until curl -fsS -o /dev/null "$url" 2>/dev/null; do
    [ "$SECONDS" -lt "$deadline" ] || fail "$url not ready within $2 s"
    sleep 1
  done
}
api() { # api PORT KEY PATH JSON -> "STATUS BODY"
  curl -sS -o "$WORK/body" -w '%{http_code}' "http://127.0.0.1:$1$3" -H "Authorization: Bearer $2" \
    -H 'Content-Type: application/json' -d "$4"
}
# Workspace, number and key through the CLI in container $1; prints the key.
provision() {
  local ws
  ws=$(podman exec "$1" phone-verify workspace create --name Acme --json | json .id)
  podman exec "$1" node bin/phone-verify.js number add --workspace "$ws" --number +61491570156 --json >>"$LOG"
  podman exec "$1" node bin/phone-verify.js key create --workspace "$ws" --name smoke --json | json .key
}
# Sends a code to $PHONE through port $1, reads it from the outbox in container $3, checks it through port $2.
send_and_check() {
  local send_port=$1 check_port=$2 reader=$3 key=$4 status id code
  status=$(api "$send_port" "$key" /v1/otp/send "{\"phone\": \"$PHONE\", \"channel\": \"sms\"}")
  [ "$status" = 201 ] || fail "send answered $status: $(cat "$WORK/body")"
  id=$(json .id <"$WORK/body")
  code=$(podman exec "$reader" node bin/phone-verify.js outbox --to "$PHONE" --json | json '[0].body' | grep -oE '[0-9]{6}' | tail -1)
  [ -n "$code" ] || fail "no code in the outbox for $PHONE"
  status=$(api "$check_port" "$key" /v1/otp/check "{\"verification_id\": \"$id\", \"code\": \"$code\"}")
  [ "$status" = 200 ] || fail "check answered $status: $(cat "$WORK/body")"
  [ "$(json .verified <"$WORK/body")" = true ] || fail "check did not verify: $(cat "$WORK/body")"
}
PHONE=+61412345678

# 1. Images.
# A week-old base is made again, so that the images get Debian's updates; in between, the same base keeps the
# build cache (in .tmp/) valid, and a rerun builds in seconds.
if [ -z "$(find "$CACHE/rootfs.done" -mtime -7 2>/dev/null)" ]; then
  step "debootstrap: a minimal Debian bookworm from deb.debian.org (kept in $CACHE)"
  rm -rf "$CACHE/rootfs" "$CACHE/rootfs.done"
  debootstrap --variant=minbase bookworm "$CACHE/rootfs" http://deb.debian.org/debian >>"$LOG" 2>&1 ||
    fail "debootstrap"
  rm -rf "$CACHE/rootfs/var/cache/apt/archives/"*.deb "$CACHE/rootfs/var/lib/apt/lists/"*
  touch "$CACHE/rootfs.done"
  # A new base invalidates every layer: the script's storage starts again empty rather than grow.
  podman rmi -a -f >>"$LOG" 2>&1 || true
fi
if ! podman image exists "$BASE"; then
  # The machine's own CA certificates (a TLS-inspecting egress proxy's): the build stage's curl and npm trust them.
  mkdir -p "$CACHE/rootfs/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$CACHE/rootfs/usr/local/share/ca-certificates/" 2>/dev/null || true
  step "importing the base image $BASE"
  tar -C "$CACHE/rootfs" -c . | podman import -q - "$BASE" >>"$LOG" 2>&1 || fail "podman import"
fi
step "building $IMAGE (Dockerfile)"
podman build --network=host --format docker --build-arg DEBIAN_IMAGE="$BASE" -t "$IMAGE" . >>"$LOG" 2>&1 ||
  fail "podman build of the Dockerfile"
step "building $PG_IMAGE (ci/postgres.Containerfile)"
podman build --network=host --build-arg DEBIAN_IMAGE="$BASE" -f ci/postgres.Containerfile -t "$PG_IMAGE" . \
  >>"$LOG" 2>&1 || fail "podman build of ci/postgres.Containerfile"
step "image: $(podman image inspect -f '{{.Size}}' "$IMAGE" | awk '{printf "%d MB", $1 / 1e6}'), user $(podman image inspect -f '{{.Config.User}}' "$IMAGE")"
[ "$(podman image inspect -f '{{.Config.User}}' "$IMAGE")" = 10001:10001 ] || fail "the image does not run as 10001"
for tool in npm gcc cc make curl apt-get; do
  if podman run --rm --network=none "$IMAGE" sh -c "command -v $tool" >/dev/null 2>&1; then
    [ "$tool" = apt-get ] || fail "the runtime image has $tool"
  fi
done

# 2. The image alone, on SQLite.
port=$(free_port)
step "SQLite: $SQLITE_CTR on 127.0.0.1:$port, volume $SQLITE_VOL at /data"
podman volume create "$SQLITE_VOL" >>"$LOG"
podman run -d --name "$SQLITE_CTR" -p "127.0.0.1:$port:3000" -v "$SQLITE_VOL:/data" "$IMAGE" >>"$LOG" 2>&1 ||
  fail "podman run"
wait_ready "http://127.0.0.1:$port/readyz" 60
podman healthcheck run "$SQLITE_CTR" >>"$LOG" 2>&1 || fail "the image's HEALTHCHECK failed"
key=$(provision "$SQLITE_CTR")
send_and_check "$port" "$port" "$SQLITE_CTR" "$key"
step "SQLite: code sent, read from the outbox, verified"
podman stop -t 30 "$SQLITE_CTR" >>"$LOG"
exit_code=$(podman inspect -f '{{.State.ExitCode}}' "$SQLITE_CTR")
[ "$exit_code" = 0 ] || { podman logs "$SQLITE_CTR" >>"$LOG" 2>&1; fail "SIGTERM: exited $exit_code, not 0"; }
podman logs "$SQLITE_CTR" 2>&1 | grep -q '"level":50' && fail "the service logged an error"
data=$(podman volume inspect -f '{{.Mountpoint}}' "$SQLITE_VOL")
[ "$(stat -c '%u:%g %a' "$data")" = "10001:10001 700" ] || fail "/data is $(stat -c '%u:%g %a' "$data")"
files=$(find "$data" -mindepth 1 -printf '%u:%g %m %P\n')
[ -n "$files" ] || fail "the volume is empty"
bad=$(grep -v '^10001:10001 600 ' <<<"$files" || true)
[ -z "$bad" ] || fail "files in /data not 10001's with mode 0600: $bad"
step "SQLite: SIGTERM exited 0; /data 10001:10001 0700 with $(wc -l <<<"$files") file(s) 0600 ($(tr '\n' ' ' <<<"$files"))"
podman rm "$SQLITE_CTR" >>"$LOG"

# 3. compose.yaml: PostgreSQL and two replicas.
PHONE_VERIFY_SECRET=$(head -c 36 /dev/urandom | base64)
POSTGRES_PASSWORD=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
PHONE_VERIFY_PORT_1=$(free_port)
PHONE_VERIFY_PORT_2=$(free_port)
export PHONE_VERIFY_SECRET POSTGRES_PASSWORD PHONE_VERIFY_PORT_1 PHONE_VERIFY_PORT_2
step "compose: PostgreSQL, then replicas on 127.0.0.1:$PHONE_VERIFY_PORT_1 and :$PHONE_VERIFY_PORT_2 (podman-compose)"
compose up -d postgres || fail "podman-compose up postgres"
pg=${PROJECT}_postgres_1
deadline=$((SECONDS + 60))
until podman healthcheck run "$pg" >/dev/null 2>&1; do
  [ "$SECONDS" -lt "$deadline" ] || fail "PostgreSQL not healthy within 60 s"
  sleep 1
done
compose up -d || fail "podman-compose up"
r1=${PROJECT}_phone-verify-1_1
r2=${PROJECT}_phone-verify-2_1
wait_ready "http://127.0.0.1:$PHONE_VERIFY_PORT_1/readyz" 90
wait_ready "http://127.0.0.1:$PHONE_VERIFY_PORT_2/readyz" 90
podman healthcheck run "$r1" >>"$LOG" 2>&1 || fail "replica 1's compose healthcheck failed"
podman healthcheck run "$r2" >>"$LOG" 2>&1 || fail "replica 2's compose healthcheck failed"
key=$(provision "$r1")
send_and_check "$PHONE_VERIFY_PORT_1" "$PHONE_VERIFY_PORT_2" "$r2" "$key"
step "compose: code sent through replica 1, read and verified through replica 2"
compose stop || fail "podman-compose stop"
for ctr in "$r1" "$r2"; do
  exit_code=$(podman inspect -f '{{.State.ExitCode}}' "$ctr")
  [ "$exit_code" = 0 ] || fail "$ctr exited $exit_code on SIGTERM, not 0"
done
step "compose: both replicas exited 0 on SIGTERM"
step "passed in $((SECONDS - started)) s"
