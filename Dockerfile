# fauxlab in a container: `docker build -t fauxlab .`, then
# `docker run --rm -p 4000:4000 -e FAUXLAB_ADMIN_TOKEN=change-me fauxlab`.
# `npm run check:docker` runs the steps of the final stage in a scratch directory, without Docker.

FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src src
COPY bin bin
COPY bench bench
# The build bundles the command and warms its code cache with one run of the demo world.
COPY scripts scripts
COPY scenarios scenarios
RUN npm ci --ignore-scripts --no-audit --no-fund && npm run build --silent

FROM node:20-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json LICENSE ./
# The build already ran in the first stage: no scripts here (`prepare` would need the compiler).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund
COPY --from=build /app/dist/src dist/src
# The command: its launcher, bundle, Markdown worker and code cache (made by this same Node).
COPY --from=build /app/dist/bin dist/bin
COPY scenarios scenarios
COPY fixtures fixtures
USER node
EXPOSE 4000
# Reachable from outside the container, so the control plane (which can rewrite the world) takes the
# token from FAUXLAB_ADMIN_TOKEN.
CMD ["sh", "-c", "exec node dist/bin/fauxlab.js serve --host 0.0.0.0 --port 4000 --admin-token \"$FAUXLAB_ADMIN_TOKEN\""]
