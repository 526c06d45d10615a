// The baseline of bench/ping.ts: a bare Fastify server (the daemon's Fastify
// version) with one route answering "OK", in its own process like the daemon.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.route({ method: ['GET', 'POST', 'HEAD'], url: '/ping/:code', handler: async (_req, reply) => reply.type('text/plain').send('OK') });
await app.listen({ host: '127.0.0.1', port: 0 });
const addr = app.server.address();
process.stdout.write(`bare ready http=127.0.0.1:${addr && typeof addr === 'object' ? addr.port : 0}\n`);
const stop = () => void app.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
