# syntax=docker/dockerfile:1
# Stablegate: compiled JavaScript on Node LTS with production dependencies only, run as a non-root
# user (DESIGN.md 11). Build: docker build -t stablegate . ; run: see compose.yaml and docs/deploy.md.
ARG NODE_IMAGE=node:24-bookworm-slim

# 1. Build: every dependency (TypeScript, Vite), then the workspace packages' dist/ (packages/*/dist)
#    and the service's dist/ with the web bundle inside it. npm ci needs each workspace's package.json.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/tron/package.json ./packages/tron/
COPY packages/sdk/package.json ./packages/sdk/
COPY packages/devnet/package.json ./packages/devnet/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY packages ./packages
COPY src ./src
COPY scripts ./scripts
COPY web ./web
RUN npm run build \
 && for p in tron sdk devnet; do mkdir -p out/packages/$p && cp -r packages/$p/package.json packages/$p/dist out/packages/$p/; done

# 2. Production dependencies only (no tsx, no Vite, no TypeScript), without install scripts. The
#    workspace packages are links (node_modules/@stablegate/* -> packages/*), filled in stage 3.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/tron/package.json ./packages/tron/
COPY packages/sdk/package.json ./packages/sdk/
COPY packages/devnet/package.json ./packages/devnet/
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# 3. Runtime: node_modules, dist/, the packages' package.json and dist/, and the launcher; nothing
#    else of the repository (no sources).
FROM ${NODE_IMAGE} AS runtime
# --max-semi-space-size=8: a 16 MB young generation instead of 32 MB (docs/deploy.md, "Start-up
# and memory"); bench/memory-startup.ts measures with the same flags (BENCH_NODE_OPTIONS).
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-semi-space-size=8 \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/app/data
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --from=build --chown=root:root /app/out/packages ./packages
COPY --chown=root:root package.json ./
COPY --chown=root:root bin ./bin
# The code stays root-owned and read-only to the service; only DATA_DIR is the node user's.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
# Graceful shutdown: stop accepting, finish in-flight requests and background steps, close the pool.
STOPSIGNAL SIGTERM
# Liveness with node itself (the slim image has no curl). Every role listens on PORT: api and all
# serve the whole API, worker only /metrics and the health routes.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/api/v1/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "bin/stablegate.mjs"]
CMD ["serve", "--role", "all"]
