// `npm run soak -- --trials N [--load-ms MIN-MAX] [--trials-per-dir N] [--quiet]`: the durability
// campaign of campaign.ts. Prints each trial and the totals; exits 1 on any loss, duplicate or
// other broken promise, so that a script or CI can rely on it.
import { parseArgs } from 'node:util';
import { runCampaign, totalChecked, type Checked } from './campaign.ts';

const { values } = parseArgs({
  options: {
    trials: { type: 'string', default: '10' },
    'load-ms': { type: 'string', default: '1000-3000' },
    'trials-per-dir': { type: 'string', default: '10' },
    'max-minutes': { type: 'string' },
    quiet: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  process.stdout.write(
    'usage: npm run soak -- --trials N [--load-ms MIN-MAX] [--trials-per-dir N] [--max-minutes M] [--quiet]\n',
  );
  process.exit(0);
}
const trials = Number(values.trials);
const [min, max] = String(values['load-ms']).split('-').map(Number) as [number, number | undefined];
const trialsPerDataDir = Number(values['trials-per-dir']);
const maxMinutes = values['max-minutes'] === undefined ? undefined : Number(values['max-minutes']);
if (maxMinutes !== undefined && !(maxMinutes > 0)) {
  process.stderr.write('soak: --max-minutes must be a positive number\n');
  process.exit(2);
}
if (
  !Number.isInteger(trials) ||
  trials < 1 ||
  !Number.isFinite(min) ||
  min < 0 ||
  !Number.isInteger(trialsPerDataDir) ||
  trialsPerDataDir < 1
) {
  process.stderr.write(
    'soak: --trials and --trials-per-dir must be positive whole numbers, --load-ms MIN-MAX in milliseconds\n',
  );
  process.exit(2);
}

const describe = (c: Checked) =>
  `webhook jobs ${c.webhookJobs}, topic messages ${c.messages}, lookup rows ${c.rows}, tokens still valid ${c.validTokens}, tokens still revoked ${c.revokedTokens}, old secrets still refused ${c.revokedSecrets}`;
const started = Date.now();
const result = await runCampaign({
  trials,
  loadMs: { min, max: max ?? min },
  trialsPerDataDir,
  ...(maxMinutes !== undefined ? { stopAt: started + maxMinutes * 60_000 } : {}),
  onTrial: (t) => {
    if (values.quiet && t.problems.length === 0 && t.trial % 50 !== 0) return;
    process.stdout.write(
      `trial ${t.trial}: killed after ${t.loadMs} ms, ${t.answered} calls answered; checked ${totalChecked(t.checked)} acknowledged (${describe(t.checked)}); problems ${t.problems.length}\n`,
    );
    for (const p of t.problems) process.stdout.write(`  ${p.kind}: ${p.detail}\n`);
  },
});

const by = (kind: string) => result.problems.filter((p) => p.kind === kind).length;
const losses = by('lost');
const duplicates = by('duplicate');
const others = result.problems.length - losses - duplicates;
process.stdout.write(
  `\ntrials run: ${result.trials}${result.stoppedEarly ? ` of ${trials} asked (--max-minutes reached)` : ''} (${result.dataDirs} data directories, ${((Date.now() - started) / 1000).toFixed(0)} s)\n` +
    `calls answered under load: ${result.answered}\n` +
    `acknowledged operations checked: ${totalChecked(result.checked)} (${describe(result.checked)})\n` +
    `losses: ${losses}, duplicates: ${duplicates}, other problems: ${others}` +
    (others > 0
      ? ` (out of order ${by('out_of_order')}, unexpected ${by('unexpected')}, unfinished jobs ${by('unfinished')}, revocations undone ${by('revocation_undone')}, valid tokens refused ${by('token_refused')})`
      : '') +
    '\n',
);
process.exitCode = result.problems.length > 0 ? 1 : 0;
