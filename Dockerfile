# Production image: docker build -t same-day-dispatch .   (docs/deploy.md; compose.yaml runs two on PostgreSQL)
# test/deploy/production.test.ts runs these stages' commands in a fresh clone without Docker:
# keep to FROM, WORKDIR, COPY, RUN (build stage), ENV, USER, VOLUME, EXPOSE, HEALTHCHECK and CMD.

# ---- build: dependencies, Prisma clients, admin frontend; then dev packages pruned ----
FROM node:22-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 ships prebuilt binaries (glibc and musl, x64 and arm64): no compiler needed.
COPY . .
RUN sh scripts/build-production.sh

# ---- runtime: only what `node web/index.ts` needs, as the unprivileged `node` user ----
FROM node:22-bookworm-slim AS runtime
# Two malloc arenas, not one per thread (glibc's default: 8 per core): V8's helper threads
# otherwise keep freed memory resident (bench:intake's idle RSS 150.5 → 144.7 MB on SQLite,
# 147.3 → 132.8 MB on PostgreSQL; docs/benchmarks.md).
ENV NODE_ENV=production PORT=3000 MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/prisma ./prisma
COPY --from=build /app/web ./web
# SQLite's default file (DATABASE_URL=file:data/same-day-dispatch.db); unused on PostgreSQL.
COPY --from=build --chown=node:node /app/data ./data
USER node
VOLUME ["/app/data"]
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node directly (PID 1, no npm or shell in between): SIGTERM from `docker stop` reaches the app, which drains and exits 0.
CMD ["node", "web/index.ts"]
