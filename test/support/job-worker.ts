// A job worker in a child process whose handler starts and never finishes:
// the process to kill in crash-recovery tests. It prints
// `STARTED <jobId> <attempt> <pid>` when it has claimed a job. The queue
// options come as JSON in the QUEUE_OPTIONS environment variable.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './paths.ts';

export function hangingWorkerScript(queueName: string): string {
  const mod = (p: string) => JSON.stringify(pathToFileURL(join(ROOT, p)).href);
  return `
    const { openDatabase } = await import(${mod('web/db/client.ts')});
    const { createJobQueue } = await import(${mod('web/jobs/index.ts')});
    const { createLogger } = await import(${mod('web/ops/logger.ts')});
    const database = await openDatabase(process.env.DATABASE_URL);
    const queue = await createJobQueue(database, { log: createLogger({ level: 'silent' }), ...JSON.parse(process.env.QUEUE_OPTIONS ?? '{}') });
    await queue.work(${JSON.stringify(queueName)}, async (job) => {
      console.log('STARTED ' + job.id + ' ' + job.attempt + ' ' + process.pid);
      await new Promise(() => {});
    });
    await queue.start();
    setInterval(() => {}, 1000);
  `;
}
