#!/bin/sh
# The production build, as the Dockerfile's build stage runs it (and test/deploy checks it):
# install everything (postinstall generates the Prisma clients and builds the admin frontend,
# which needs dev packages), then drop the dev packages. `npm ci --omit=dev` alone cannot
# build the frontend.
set -eu
npm ci --no-audit --no-fund
npm prune --omit=dev --no-audit --no-fund
mkdir -p data
