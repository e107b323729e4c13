// The yardsticks: bare Fastify routes answering trivial JSON (/token, /publish), and a bare Fastify proxy route
// (no auth) forwarding to UPSTREAM_URL through undici, the client Node's own fetch is built on.
import Fastify from 'fastify';
import { Agent, request } from 'undici';

const app = Fastify();
const agent = new Agent({ keepAliveTimeout: 10_000, connections: 128 });
const upstream = process.env.UPSTREAM_URL;

app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) =>
  done(null, new URLSearchParams(body as string)),
);
app.post('/token', async () => ({ access_token: 'x', token_type: 'bearer', expires_in: 3600 }));
// The event streams yardstick: parse a JSON message, answer an id (no auth, no storage).
let published = 0;
app.post('/publish', async (req) => ({ message_id: String((published += typeof req.body === 'object' ? 1 : 0)) }));
app.get('/proxy/*', async (req, reply) => {
  const res = await request(`${upstream}/${(req.params as { '*': string })['*']}`, { dispatcher: agent });
  const body = await res.body.arrayBuffer();
  return reply
    .status(res.statusCode)
    .header('content-type', String(res.headers['content-type'] ?? 'application/json'))
    .send(Buffer.from(body));
});

const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`LISTENING ${address}\n`);
