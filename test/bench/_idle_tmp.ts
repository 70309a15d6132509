import { benchDatabase, cli, rssMbOf, startAppProcess } from './lib.ts';
const provider = (process.argv[2] ?? 'sqlite') as 'sqlite' | 'postgres';
const db = (await benchDatabase(provider))!;
const app = await startAppProcess(db.url);
cli(app.env, 'configure', 'bench.myshopify.com', '--auto-dispatch', 'on');
const t0 = Date.now();
const out: string[] = [];
for (let i = 0; i < 40; i++) { await new Promise((r) => setTimeout(r, 1000)); out.push(`${Math.round((Date.now() - t0) / 1000)}:${rssMbOf(app.proc.child.pid).toFixed(0)}`); }
console.log(provider, out.join(' '));
await app.stop();
process.exit(0);
