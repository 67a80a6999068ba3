// The ceiling: a bare Fastify server answering {"ok":true} on GET /v1/ping, with nothing behind it (no key, no
// database, no logging). What this machine's Node and Fastify can do at most; every other figure is read
// as a share of it. Prints one JSON line { url } once listening; exits on SIGTERM.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/v1/ping', async () => ({ ok: true }));
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ url })}\n`);
process.once('SIGTERM', () => {
  app.close().then(() => process.exit(0));
});
