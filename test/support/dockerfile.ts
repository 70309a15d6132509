// The Dockerfile read as stages of instructions, for the deploy test (which assembles the
// runtime stage without Docker) and the benchmarks (which start the app with the runtime's ENV).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './paths.ts';

export interface Stage { from: string; name: string; lines: { op: string; args: string }[] }

/** Instructions per stage; continuation lines joined, comments dropped. */
export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  for (const line of text.replace(/\\\n/g, ' ').split('\n')) {
    const m = /^\s*([A-Z]+)\s+(.*)$/.exec(line);
    if (!m || line.trim().startsWith('#')) continue;
    const [, op, args] = m as unknown as [string, string, string];
    if (op === 'FROM') {
      const f = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args.trim())!;
      stages.push({ from: f[1]!, name: f[2] ?? String(stages.length), lines: [] });
    } else stages.at(-1)!.lines.push({ op, args: args.trim() });
  }
  return stages;
}

/** One ENV instruction's `KEY=value` pairs. */
export function envPairs(args: string): Array<[string, string]> {
  return args.split(/\s+/).filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]);
}

/** The environment the Dockerfile's last (runtime) stage sets: the app as it is deployed. */
export function dockerfileEnv(file = join(ROOT, 'Dockerfile')): Record<string, string> {
  const runtime = parseDockerfile(readFileSync(file, 'utf8')).at(-1);
  return Object.fromEntries((runtime?.lines ?? []).filter((l) => l.op === 'ENV').flatMap((l) => envPairs(l.args)));
}
