// Secrets for the CLI come from stdin or the environment, never from argv.
// Piped stdin gives one secret per line, in the order the options are read;
// on a terminal the prompt does not echo what is typed.
import { CliError } from './errors.ts';

let piped: string[] | null = null;

async function pipedLines(): Promise<string[]> {
  if (piped) return piped;
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  piped = Buffer.concat(chunks).toString('utf8').split(/\r?\n/);
  return piped;
}

function promptHidden(label: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    process.stderr.write(`${label}: `);
    stdin.setRawMode(true);
    stdin.resume();
    let value = '';
    const onData = (buf: Buffer) => {
      for (const ch of buf.toString('utf8')) {
        if (ch === '\r' || ch === '\n') {
          done();
          return resolve(value);
        }
        if (ch === '\u0003') {
          done();
          return reject(new CliError('cancelled'));
        }
        if (ch === '\u007f') value = value.slice(0, -1);
        else value += ch;
      }
    };
    const done = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
    };
    stdin.on('data', onData);
  });
}

/** `-` reads stdin (one line), `env` reads the named environment variable. */
export async function readSecret(option: string, value: string, envVar: string): Promise<string> {
  let secret: string | undefined;
  if (value === 'env') {
    secret = process.env[envVar];
    if (!secret) throw new CliError(`--${option} env: ${envVar} is not set`);
  } else if (value === '-') {
    secret = process.stdin.isTTY ? await promptHidden(option) : (await pipedLines()).shift();
    if (!secret) throw new CliError(`--${option} -: no value on stdin`);
  } else {
    throw new CliError(`--${option} takes - (read from stdin) or env (read ${envVar}); secrets are never accepted as arguments`);
  }
  return secret.trim();
}
