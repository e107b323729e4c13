// The durability campaign (soak/), three short trials: the real server killed with SIGKILL under a
// mixed load keeps everything it acknowledged, once. `npm run soak -- --trials N` runs more.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCampaign } from '../soak/campaign.ts';

test(
  'SIGKILL under a mixed load, three times: nothing acknowledged is lost or doubled, revoked tokens stay revoked',
  { timeout: 120_000 },
  async () => {
    const result = await runCampaign({ trials: 3, loadMs: { min: 400, max: 1200 }, trialsPerDataDir: 3 });
    assert.deepEqual(result.problems, []);
    assert.equal(result.trials, 3);
    // Each kind was really exercised: a check of nothing would pass whatever the server did.
    for (const [kind, count] of Object.entries(result.checked)) assert.ok(count > 0, `${kind} checked: ${count}`);
  },
);
