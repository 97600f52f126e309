# sfn-emulator: the Step Functions emulator's HTTP endpoint on port 8083.
#   docker build -t sfn-emulator .
#   docker run --rm -p 8083:8083 -v "$PWD/config:/config:ro" -e SFN_MOCK_CONFIG=/config/mocks.json sfn-emulator
#   docker run --rm -p 8083:8083 -v "$PWD:/config:ro" sfn-emulator serve --stack template.yaml
# Any Debian-based image with Python >= 3.10 and its venv module can be the base (--build-arg BASE_IMAGE=...).
ARG BASE_IMAGE=python:3.12-slim

FROM ${BASE_IMAGE} AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY emulator ./emulator
COPY plugins ./plugins
# Behind a proxy or with a private index, give pip its configuration as build secrets (they stay
# out of the image): --secret id=pip.conf,src=FILE, and --secret id=ca-bundle,src=CA_FILE for a
# pip.conf that says `cert = /run/secrets/ca-bundle`. Without them pip uses its defaults.
# The one extra installed, `stacks`, is what `serve --stack` needs to load a SAM/CloudFormation template
# mounted into the container; the others (parquet, test, docs) stay out of the image.
RUN --mount=type=secret,id=pip.conf --mount=type=secret,id=ca-bundle \
    python3 -m venv /opt/sfn-emulator \
    && PIP_CONFIG_FILE=/run/secrets/pip.conf \
       /opt/sfn-emulator/bin/pip install --no-cache-dir --disable-pip-version-check ".[stacks]" \
    && find /opt/sfn-emulator -name __pycache__ -prune -exec rm -rf {} +

FROM ${BASE_IMAGE}
# The same base as the build stage, so the virtual environment's interpreter links stay valid.
COPY --from=build /opt/sfn-emulator /opt/sfn-emulator
COPY docker/healthcheck.py /opt/sfn-emulator/healthcheck.py
RUN useradd --uid 10001 --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin sfn \
    && mkdir /config /state && chown sfn:sfn /state
ENV PATH=/opt/sfn-emulator/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    SFN_EMULATOR_HOST=0.0.0.0 \
    SFN_EMULATOR_PORT=8083 \
    SFN_EMULATOR_ALLOWED_HOSTS=sfn-emulator,host.docker.internal,gateway.docker.internal,host.containers.internal
# Host names answered besides localhost and loopback addresses (what a published port is reached by
# from this machine): the compose service name `sfn-emulator`, and the names other containers use
# for the host (Docker Desktop, Podman). Another service name or alias: set the variable to it.
# Mount functions maps, their Python files and mock configuration files here, and name them with
# SFN_EMULATOR_FUNCTIONS and SFN_MOCK_CONFIG (the other variables: see docs/configuration.md).
# State that survives a restart of the container: with SFN_EMULATOR_STATE_DIR=/state, state machines,
# executions with their histories, activities and the clock are kept in an SQLite database here
# (see docs/persistence.md). Mount a named volume on it to keep it across `docker rm` too.
VOLUME ["/state"]
WORKDIR /config
USER sfn
EXPOSE 8083
HEALTHCHECK --interval=10s --timeout=5s --start-period=10s --retries=3 \
    CMD ["/opt/sfn-emulator/bin/python", "/opt/sfn-emulator/healthcheck.py"]
# Exec form: the server is PID 1 and receives SIGTERM itself; it stops at once and exits 0.
ENTRYPOINT ["sfn-emulator"]
CMD ["serve"]
