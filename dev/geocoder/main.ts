// `npm run geocoder`: the local Nominatim stand-in on 127.0.0.1:4030 (GEOCODER_DOUBLE_PORT or --port).
// Point the app at it with GEOCODER_PROVIDER=nominatim GEOCODER_URL=http://127.0.0.1:4030.
import { parseArgs } from 'node:util';
import { startGeocoderDouble } from './server.ts';

const { values } = parseArgs({ options: { port: { type: 'string' }, host: { type: 'string' } } });
const port = Number(values.port ?? process.env.GEOCODER_DOUBLE_PORT ?? 4030);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error('port must be a TCP port number');
  process.exit(2);
}
const double = await startGeocoderDouble({ port, host: values.host ?? '127.0.0.1' });
console.log(`Geocoder double (Nominatim format) on ${double.url}`);
const stop = () => void double.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
