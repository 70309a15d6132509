// Runs in postinstall before the admin frontend build: that build needs the dev packages
// (TypeScript, Vite, type packages), so `npm ci --omit=dev` (or NODE_ENV=production, which
// implies it) cannot build. Say how to build for production instead of a "tsc: not found".
'use strict';
var omit = (process.env.npm_config_omit || '').split(/[\s,]+/);
if (omit.indexOf('dev') !== -1) {
  process.stderr.write(
    'npm ci --omit=dev cannot build the admin frontend (the build needs the dev packages). For production, build with ' +
      'everything, then prune: `sh scripts/build-production.sh` (npm ci, then npm prune --omit=dev); see docs/deploy.md.\n'
  );
  process.exit(1);
}
