# syntax=docker/dockerfile:1
# ---- build: install everything, compile TypeScript with swc, build the dashboard with vite ----
# Node 26: the Active LTS line (Node 20 reached its end of life on 2026-04-30). `engines` stays >=20.19.
FROM node:26-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json .swcrc ./
COPY src ./src
COPY migrations ./migrations
COPY web ./web
# swc for the service, vite for the dashboard (dist/web, served by the same process at /).
RUN npm run build

# ---- runtime: production dependencies only, non-root ----
FROM node:26-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY locales ./locales
COPY src/sandbox/assets ./src/sandbox/assets
# The operator CLI on the PATH: `docker compose exec app nebula-gen models:list` (no compiler needed).
COPY bin ./bin
RUN ln -s /app/bin/nebula-gen.js /usr/local/bin/nebula-gen
RUN useradd --system --uid 10001 --home /app app && mkdir -p /app/data && chown app /app/data
USER app
EXPOSE 3000
# Ready = database, Redis (when configured) and the job queue answer; 503 while starting or draining.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# main.js applies pending migrations before it serves; on SIGTERM it drains (SHUTDOWN_DRAIN_MS) and exits.
CMD ["node", "dist/src/main.js"]
