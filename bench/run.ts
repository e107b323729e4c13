// npm run bench -- <name> [--seconds N] [--connections N]: runs one benchmark, which prints its figures.
import { parseArgs } from 'node:util';

const BENCHMARKS: Record<string, () => Promise<{ run(options: { seconds: number; connections: number }): Promise<void> }>> = {
  token: () => import('./token.ts'),
  gateway: () => import('./gateway.ts'),
  jobs: () => import('./jobs.ts'),
};

const { positionals, values } = parseArgs({ allowPositionals: true, options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '32' } } });
const name = positionals[0];
const loader = name ? BENCHMARKS[name] : undefined;
if (!loader) {
  console.error(`usage: npm run bench -- <${Object.keys(BENCHMARKS).join('|')}> [--seconds N] [--connections N]`);
  process.exit(2);
}
const module = await loader();
await module.run({ seconds: Number(values.seconds), connections: Number(values.connections) });
