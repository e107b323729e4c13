// The upstream of the gateway benchmark: a small JSON answer, as an order API would give.
import Fastify from 'fastify';

const app = Fastify();
app.get('/*', async (req) => ({ id: 42, status: 'shipped', path: req.url }));
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`LISTENING ${address}\n`);
