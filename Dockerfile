# syntax=docker/dockerfile:1
# ---- build: install everything, compile TypeScript with swc, build the dashboard with vite ----
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --loglevel=error
COPY tsconfig.json .swcrc ./
COPY src ./src
COPY migrations ./migrations
COPY web ./web
# swc for the service, vite for the dashboard (dist/web, served by the same process at /).
RUN npm run build

# ---- runtime: production dependencies only, non-root ----
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --loglevel=error && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY locales ./locales
COPY src/sandbox/assets ./src/sandbox/assets
RUN useradd --system --uid 10001 --home /app app && mkdir -p /app/data && chown app /app/data
USER app
EXPOSE 3000
# main.js applies pending migrations before it serves.
CMD ["node", "dist/src/main.js"]
