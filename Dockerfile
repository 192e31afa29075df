# Airdate server image. Build: `docker build -t airdate .` (or `buildah bud -t airdate .`);
# run: `docker run -p 4000:4000 -v airdate-data:/data airdate`; with PostgreSQL: compose.yaml.
# The build stage runs what .ci/run runs from a clean checkout (npm ci, whose postinstall
# generates both Prisma clients and runs `npm run build`), then drops the dev dependencies; the
# runtime stage gets the built server, the production node_modules and the migrations, nothing else.

# Node 22 LTS (Airdate supports 22.14+ and 24; `--build-arg NODE_IMAGE=node:24-bookworm-slim`).
# Debian's slim image rather than Alpine: Prisma targets glibc. better-sqlite3 13 ships Node-API
# binaries for linux x64/arm64 (glibc and musl) inside its package: no compiler is needed.
ARG NODE_IMAGE=node:22-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV npm_config_loglevel=error npm_config_fund=false npm_config_audit=false
COPY . .
# As .ci/run: npm ci, or npm install (same locked versions) when this npm refuses the lock file.
RUN npm ci || npm install
RUN npm run build
RUN npm prune --omit=dev

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    AIRDATE_DATA_DIR=/data \
    PORT=4000
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
# The empty package that stands in for @scarf/scarf (package.json overrides): node_modules links to it.
COPY --from=build /app/vendor ./vendor
COPY --from=build /app/dist ./dist
COPY --from=build /app/prisma ./prisma
COPY --from=build /app/bin ./bin
# The data folder (SQLite database, secret.key, catalog.json) belongs to the unprivileged user
# the image's Node base provides (uid 1000); everything else stays root's and read-only to it.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 4000
# node itself (no curl in slim images); the server listens on all interfaces unless HOST is set.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node is PID 1 and handles SIGTERM itself: it stops taking requests, finishes those in progress
# and the running jobs, closes the database and exits 0 (no npm or shell in between).
STOPSIGNAL SIGTERM
CMD ["node", "dist/main.js", "serve"]
