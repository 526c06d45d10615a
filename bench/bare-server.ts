// The baselines of bench/ping.ts, each in its own process like the daemon,
// on the daemon's Fastify version:
//   bare-server.ts                  one route answering "OK";
//   bare-server.ts one-put <dir>    the same route, answering only after one
//     durable LMDB write (the daemon's own openDb, the flushed promise) of a
//     record the size of what a ping stores: a check and a ping. No durable
//     ping can be cheaper than this, so it is the floor the ping path's ratio
//     is read against.
import Fastify from 'fastify';
import { openDb } from '../daemon/store/db.js';
import { newCheck } from '../daemon/domain/check-input.js';
import { newUuid } from '../daemon/domain/ids.js';
import type { PingRecord } from '../daemon/domain/types.js';

const [mode = 'bare', dataDir] = process.argv.slice(2);
if (mode !== 'bare' && !(mode === 'one-put' && dataDir)) {
  process.stderr.write('usage: bare-server.ts [one-put <data dir>]\n');
  process.exit(2);
}

const app = Fastify({ logger: false });
let answer: (uuid: string) => Promise<void> = async () => {};
if (mode === 'one-put') {
  const db = openDb(dataDir!);
  const projectId = newUuid();
  const template = newCheck({ uuid: projectId, badgeKey: newUuid(), projectId, createdAt: Date.now() });
  let rev = 0;
  answer = async (uuid) => {
    const now = Date.now();
    rev += 1;
    const check = { ...template, uuid, status: 'up' as const, lastPing: now, nPings: rev };
    const ping: PingRecord = { n: rev, date: now, kind: 'success', scheme: 'http', remoteAddr: '127.0.0.1', method: 'GET', ua: '', rid: null, exitStatus: null, duration: null, body: null };
    await db.events.put(rev, { rev, at: now, type: 'ping.received', projectId, checkUuid: uuid, check, ping });
    await db.root.flushed;
  };
}
app.route({
  method: ['GET', 'POST', 'HEAD'],
  url: '/ping/:code',
  handler: async (req, reply) => {
    await answer((req.params as { code: string }).code);
    return reply.type('text/plain').send('OK');
  },
});
await app.listen({ host: '127.0.0.1', port: 0 });
const addr = app.server.address();
process.stdout.write(`bare ready http=127.0.0.1:${addr && typeof addr === 'object' ? addr.port : 0}\n`);
const stop = () => void app.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
