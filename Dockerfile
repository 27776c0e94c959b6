# Mailroom: mail server for software agents. Data lives on the /data volume.
# Node 20, the version package.json's engines names and the tests run on.
FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY bin ./bin
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# npm ci's prepare runs the build, which first writes the client's types (scripts/generate-client.ts).
COPY scripts ./scripts
COPY migrations ./migrations
RUN npm ci --no-audit --no-fund && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
# Fewer malloc arenas: memory the parse and ingest threads freed is reused and returned
# (about 100 MB less RSS after large messages, measured; see docs/decisions/memory.md). A fixed mmap
# threshold: a block of 1 MB or more (a big message's bytes) goes back to the system when freed,
# where glibc would otherwise raise the threshold after the first and keep the next ones.
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    MALLOC_MMAP_THRESHOLD_=1048576 \
    MAILROOM_HOST=0.0.0.0 \
    MAILROOM_DATA_DIR=/data \
    MAILROOM_HTTP_PORT=3000 \
    MAILROOM_SMTP_PORT=2525
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY migrations ./migrations
COPY assets ./assets
COPY package.json LICENSE ./
RUN mkdir -p -m 700 /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000 2525
# GET /readyz on MAILROOM_HTTP_PORT, read from the same settings as the server: change the port
# with that variable (not a serve flag) and the check follows.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["node", "bin/healthcheck.js"]
# On SIGTERM the server waits MAILROOM_SHUTDOWN_GRACE (5 s) for SMTP and HTTP work in flight and
# exits within 3 s more: inside docker stop's default 10 s. A longer grace needs --stop-timeout.
STOPSIGNAL SIGTERM
CMD ["node", "bin/mailroom.js", "serve"]
