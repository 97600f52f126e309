#!/usr/bin/env bash
# Builds the Docker image with rootful podman and checks it for real: the health check, boto3
# calls through a loopback port mapping (a Lambda function and a mock configuration mounted from
# a volume, and a SAM app's template served by `serve --stack`), a non-root user, and a clean, quick
# stop on SIGTERM. Exits non-zero on any failure.
#
# Machines without a Docker engine or a container registry: podman, debootstrap and runc come from
# Debian's packages, and the base image is a stand-in built with debootstrap (bookworm with
# python3, python3-venv and python3-pip), imported once and reused. pip inside the build gets the
# host's CA bundle and package index as build secrets.
#
# Run as root from anywhere: docker/podman-smoke.sh   (PYTHON: an interpreter with boto3, default python3)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-python3}
STATE=${SFN_SMOKE_STATE:-/var/tmp/sfn-emulator-podman}
BASE_IMAGE=localhost/sfn-base:bookworm
IMAGE=localhost/sfn-emulator:smoke
CONTAINER=sfn-emulator-smoke-$$
STOP_SECONDS_ALLOWED=5
STACK_STAGE=smoke  # the Stage parameter examples/sam-app/ is served with

say() { printf '==> %s\n' "$*"; }
fail() { printf 'podman-smoke: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || fail "run me as root (rootful podman, debootstrap)"
"$PYTHON" -c "import boto3" 2>/dev/null || fail "$PYTHON cannot import boto3: set PYTHON to the project's venv python"

install_tools() {
    local missing=() tool
    for tool in podman debootstrap runc; do
        command -v "$tool" >/dev/null || missing+=("$tool")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        say "installing ${missing[*]} from Debian's packages"
        apt-get update -q
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q podman debootstrap runc
    fi
}

# podman's default limits (1048576 open files and processes) are more than these machines let a
# container have (without CAP_SYS_RESOURCE runc cannot raise them; here no more than 32768 took),
# and its default runtime (crun) does not run here: runc does. A file of our own, so the host's
# configuration stays as it is.
LIMIT_CAP=32768
configure_podman() {
    mkdir -p "$STATE"
    local nofile nproc
    nofile=$(ulimit -Hn); nproc=$(ulimit -Hu)
    { [ "$nofile" = unlimited ] || [ "$nofile" -gt "$LIMIT_CAP" ]; } && nofile=$LIMIT_CAP
    { [ "$nproc" = unlimited ] || [ "$nproc" -gt "$LIMIT_CAP" ]; } && nproc=$LIMIT_CAP
    cat > "$STATE/containers.conf" <<CONF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]

[engine]
runtime = "runc"
CONF
    export CONTAINERS_CONF="$STATE/containers.conf"
    ULIMITS=(--ulimit "nofile=$nofile:$nofile" --ulimit "nproc=$nproc:$nproc")  # podman build ignores the file's
}

build_base_image() {
    if podman image exists "$BASE_IMAGE"; then
        say "base image $BASE_IMAGE already built"
        return
    fi
    say "building the stand-in base image $BASE_IMAGE with debootstrap"
    local rootfs="$STATE/rootfs"
    rm -rf "$rootfs"
    debootstrap --variant=minbase --include=python3,python3-venv,python3-pip,ca-certificates bookworm "$rootfs"
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
    tar -C "$rootfs" -c . | podman import --change 'CMD ["/bin/bash"]' - "$BASE_IMAGE"
    rm -rf "$rootfs"
}

# The host's CA bundle and package index, for pip inside the build, as the Dockerfile's build secrets.
pip_build_secrets() {
    local cert index
    cert=${PIP_CERT:-$(pip3 config get global.cert 2>/dev/null || true)}
    cert=${cert:-${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}}
    index=${PIP_INDEX_URL:-$(pip3 config get global.index-url 2>/dev/null || true)}
    BUILD_SECRETS=(--secret "id=pip.conf,src=$STATE/pip.conf")
    {
        echo "[global]"
        if [ -f "$cert" ]; then
            echo "cert = /run/secrets/ca-bundle"
            BUILD_SECRETS+=(--secret "id=ca-bundle,src=$cert")
        fi
        case "$index" in http://*|https://*) echo "index-url = $index" ;; esac
    } > "$STATE/pip.conf"
}

# podman tries to set up a systemd timer for health checks and logs an error when there is no systemd.
podman_without_systemd() {
    podman "$@" 2> >(grep -v "unable to get systemd connection" >&2)
}

cleanup() {
    podman rm --force --ignore "$CONTAINER" >/dev/null 2>&1 || true
}

install_tools
configure_podman
build_base_image
pip_build_secrets

say "building $IMAGE on $BASE_IMAGE"
# Docker format: the OCI format has no HEALTHCHECK.
podman build --format docker "${ULIMITS[@]}" --build-arg BASE_IMAGE="$BASE_IMAGE" "${BUILD_SECRETS[@]}" -t "$IMAGE" "$ROOT"
podman image inspect --format 'image size: {{.Size}} bytes' "$IMAGE"

trap cleanup EXIT
PORT=$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
say "running $CONTAINER on 127.0.0.1:$PORT with fixtures/ mounted at /config, examples/sam-app/ at /stack"
# No systemd here to run health checks on a timer: the script runs the image's HEALTHCHECK itself.
podman_without_systemd run --detach --name "$CONTAINER" --publish "127.0.0.1:$PORT:8083" \
    --volume "$ROOT/fixtures:/config:ro" \
    --volume "$ROOT/examples/sam-app:/stack:ro" \
    --env SFN_EMULATOR_FUNCTIONS=/config/functions/functions.yaml \
    --env SFN_MOCK_CONFIG=/config/mocks/OrderPolling.yaml \
    --env AWS_ACCOUNT_ID=111122223333 \
    --env AWS_DEFAULT_REGION=eu-west-1 \
    --env WAIT_TIME_SCALE=1 \
    "$IMAGE" serve --stack /stack/template.yaml --stack-parameter "Stage=$STACK_STAGE" >/dev/null

say "waiting for the image's HEALTHCHECK to pass"
for attempt in $(seq 1 60); do
    if podman healthcheck run "$CONTAINER" >/dev/null 2>&1; then
        break
    fi
    [ "$(podman inspect --format '{{.State.Running}}' "$CONTAINER")" = true ] || {
        podman logs "$CONTAINER" >&2; fail "the container stopped while starting"; }
    [ "$attempt" -lt 60 ] || { podman logs "$CONTAINER" >&2; fail "not healthy after 30 s"; }
    sleep 0.5
done

[ "$(podman exec "$CONTAINER" id -u)" = 10001 ] || fail "the server does not run as the non-root user sfn"

say "boto3 against http://127.0.0.1:$PORT"
"$PYTHON" "$ROOT/docker/smoke_check.py" "http://127.0.0.1:$PORT" --account 111122223333 --region eu-west-1 \
    --fixtures "$ROOT/fixtures" --stack-stage "$STACK_STAGE" || { podman logs "$CONTAINER" >&2; fail "the boto3 check failed"; }

say "the image runs the other commands too, on files in /config"
podman_without_systemd run --rm --volume "$ROOT/fixtures:/config:ro" "$IMAGE" validate machines/OrderPolling.asl.json \
    || fail "sfn-emulator validate in the image failed"

say "stopping with SIGTERM"
started=$(date +%s.%N)
podman_without_systemd stop --time 30 "$CONTAINER" >/dev/null
stopped=$(date +%s.%N)
exit_code=$(podman inspect --format '{{.State.ExitCode}}' "$CONTAINER")
elapsed=$("$PYTHON" -c "print(f'{$stopped - $started:.2f}')")
podman logs "$CONTAINER" 2>&1 | grep -q "sfn-emulator stopped." || { podman logs "$CONTAINER" >&2; fail "no clean shutdown in the log"; }
[ "$exit_code" = 0 ] || fail "the server exited with $exit_code on SIGTERM"
"$PYTHON" -c "import sys; sys.exit(not $elapsed < $STOP_SECONDS_ALLOWED)" || fail "SIGTERM took ${elapsed}s (over ${STOP_SECONDS_ALLOWED}s)"
say "stopped cleanly in ${elapsed}s (exit code 0)"
say "podman smoke test passed"
