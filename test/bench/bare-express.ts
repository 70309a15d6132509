// The baseline for bench:intake: the smallest Express app that reads the body and answers 200.
import express from 'express';
const app = express();
app.post('/api/webhooks', express.text({ type: '*/*', limit: '1mb' }), (_req, res) => void res.status(200).json({ ok: true }));
const server = app.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: (server.address() as { port: number }).port, msg: 'listening' })));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
