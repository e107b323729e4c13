// The durability campaign: trials of a mixed load against the real server, each ended by SIGKILL at
// a random moment, then a restart on the same data directory and a check that everything the server
// acknowledged before the kill is there exactly once. What "acknowledged" means: the server answered
// it with success (a reply is sent only once its commits are on disk: docs/adr/0007).
//
// A data directory serves `trialsPerDataDir` trials in a row, and every check covers everything
// acknowledged in it so far, so a later crash that undid an earlier write is caught too.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { call, kill, must, startServer, type Server } from './server.ts';

export interface CampaignOptions {
  trials: number;
  /** How long the load runs before the kill, drawn uniformly between these (ms). */
  loadMs: { min: number; max: number };
  /** Trials run one after the other on one data directory before a fresh one is made. */
  trialsPerDataDir: number;
  /** No trial starts after this time (ms since the epoch); the campaign then ends with the trials run. */
  stopAt?: number;
  /** Told after each trial. */
  onTrial?: (trial: TrialSummary) => void;
}

/** Acknowledged operations checked, by kind. */
export interface Checked {
  webhookJobs: number;
  messages: number;
  rows: number;
  validTokens: number;
  revokedTokens: number;
  revokedSecrets: number;
}

export type ProblemKind =
  'lost' | 'duplicate' | 'out_of_order' | 'unexpected' | 'unfinished' | 'revocation_undone' | 'token_refused';

export interface Problem {
  trial: number;
  kind: ProblemKind;
  detail: string;
}

export interface TrialSummary {
  trial: number;
  loadMs: number;
  checked: Checked;
  /** Calls answered during the load, all kinds together (gateway calls and consumes included). */
  answered: number;
  problems: Problem[];
}

export interface CampaignResult {
  trials: number;
  /** The campaign reached `stopAt` before running every trial asked for. */
  stoppedEarly: boolean;
  dataDirs: number;
  checked: Checked;
  answered: number;
  problems: Problem[];
}

const zero = (): Checked => ({
  webhookJobs: 0,
  messages: 0,
  rows: 0,
  validTokens: 0,
  revokedTokens: 0,
  revokedSecrets: 0,
});

export function totalChecked(checked: Checked): number {
  return Object.values(checked).reduce((sum, n) => sum + n, 0);
}

export async function runCampaign(options: CampaignOptions): Promise<CampaignResult> {
  const result: CampaignResult = {
    trials: 0,
    stoppedEarly: false,
    dataDirs: 0,
    checked: zero(),
    answered: 0,
    problems: [],
  };
  const upstream = await startUpstream();
  try {
    while (result.trials < options.trials && !result.stoppedEarly) {
      const count = Math.min(options.trialsPerDataDir, options.trials - result.trials);
      result.dataDirs += 1;
      await runDataDir(options, result, count, upstream.url);
    }
  } finally {
    await upstream.close();
  }
  return result;
}

/** What the server should hold, gathered from its replies. */
interface Expected {
  webhooksSent: Set<string>;
  webhooksAcked: Set<string>;
  /** Per publisher (`trial-p`): every sequence number sent, and those acknowledged. */
  published: Map<string, { sent: Set<number>; acked: Set<number> }>;
  rowsSent: Set<string>;
  rowsAcked: Set<string>;
  /** OAuth tokens acknowledged that must keep working: profile A's, and profile B's of its current secret. */
  validTokens: string[];
  /** Profile B's tokens and secrets made void by an acknowledged secret refresh. */
  revokedTokens: string[];
  revokedSecrets: string[];
}

interface Fixture {
  recipeId: number;
  hookPath: string;
  topicId: number;
  tableId: number;
  endpointPath: string;
  a: { clientId: string; secret: string };
  b: { profileId: number; clientId: string; secret: string | undefined; tokens: string[] };
}

async function runDataDir(
  options: CampaignOptions,
  result: CampaignResult,
  trials: number,
  upstreamUrl: string,
): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-soak-'));
  let server: Server | undefined;
  try {
    server = await startServer(dataDir);
    const fixture = await setUp(server.url, upstreamUrl);
    const expected: Expected = {
      webhooksSent: new Set(),
      webhooksAcked: new Set(),
      published: new Map(),
      rowsSent: new Set(),
      rowsAcked: new Set(),
      validTokens: [],
      revokedTokens: [],
      revokedSecrets: [],
    };
    for (let i = 0; i < trials; i++) {
      if (options.stopAt !== undefined && Date.now() >= options.stopAt) {
        result.stoppedEarly = true;
        break;
      }
      const trial = result.trials + 1;
      const loadMs = Math.round(options.loadMs.min + Math.random() * (options.loadMs.max - options.loadMs.min));
      const summary: TrialSummary = { trial, loadMs, checked: zero(), answered: 0, problems: [] };
      const before = snapshot(expected);
      summary.answered = await loadUntilKilled(server, fixture, expected, trial, loadMs, summary.problems);
      server = await startServer(dataDir);
      if (fixture.b.secret === undefined) await renewProfileB(server.url, fixture);
      await verify(server.url, dataDir, fixture, expected, trial, summary, before);
      result.trials = trial;
      result.answered += summary.answered;
      for (const key of Object.keys(summary.checked) as Array<keyof Checked>)
        result.checked[key] += summary.checked[key];
      result.problems.push(...summary.problems);
      options.onTrial?.(summary);
    }
    await kill(server, 'SIGTERM');
  } finally {
    if (server) await kill(server);
    fs.rmSync(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  }
}

async function setUp(url: string, upstreamUrl: string): Promise<Fixture> {
  const hookStep = {
    number: 1,
    keyword: 'action',
    provider: 'logger',
    name: 'log_message',
    as: 'log',
    input: { message: 'soak' },
  };
  const code = {
    number: 0,
    keyword: 'trigger',
    provider: 'workato_webhooks',
    name: 'new_event',
    as: 'hook',
    input: { webhook_suffix: 'soak' },
    block: [hookStep],
  };
  const recipe = await must(url, 'POST', '/api/recipes', {
    recipe: { name: 'Soak', code: JSON.stringify(code), concurrency: 4 },
  });
  await must(url, 'PUT', `/api/recipes/${recipe.id}/start`);
  const hookPath = new URL((await must(url, 'GET', `/api/recipes/${recipe.id}`)).webhook_url).pathname;
  const topic = await must(url, 'POST', '/api/event_streams/topics', {
    name: 'Soak',
    schema: [
      { name: 'publisher', type: 'string', optional: false },
      { name: 'seq', type: 'number', optional: false },
    ],
  });
  const table = await must(url, 'POST', '/api/lookup_tables', {
    name: 'Soak',
    schema: [{ label: 'key' }, { label: 'trial' }],
  });
  const connection = await must(url, 'POST', '/api/connections', {
    name: 'Upstream',
    provider: 'rest',
    input: { base_url: upstreamUrl, auth_type: 'none' },
  });
  const collection = await must(url, 'POST', '/api/api_collections', {
    name: 'Soak',
    proxy_connection_id: connection.id,
  });
  const endpoint = await must(url, 'POST', `/api/api_collections/${collection.id}/api_endpoints`, {
    name: 'Get order',
    method: 'GET',
    path: 'orders/{id}',
  });
  await must(url, 'PUT', `/api/api_endpoints/${endpoint.id}/enable`);
  const client = await must(url, 'POST', '/api/api_clients', { name: 'Soak client' });
  const profile = async (name: string) =>
    must(url, 'POST', '/api/api_access_profiles', {
      name,
      api_client_id: client.id,
      api_collection_ids: [collection.id],
      auth_type: 'oauth2',
    });
  const a = await profile('Soak tokens');
  const b = await profile('Soak revocations');
  return {
    recipeId: recipe.id,
    hookPath,
    topicId: topic.data.id,
    tableId: table.id,
    endpointPath: new URL(String(endpoint.url).replace('{id}', '42')).pathname,
    a: { clientId: a.oauth_client_id, secret: a.oauth_client_secret },
    b: { profileId: b.id, clientId: b.oauth_client_id, secret: b.oauth_client_secret, tokens: [] },
  };
}

/** After a kill during a refresh of profile B's secret, the secret in force is unknown: refresh it again. */
async function renewProfileB(url: string, fixture: Fixture): Promise<void> {
  const refreshed = await must(url, 'PUT', `/api/api_access_profiles/${fixture.b.profileId}/refresh_secret`);
  fixture.b.secret = refreshed.oauth_client_secret;
}

async function issueToken(url: string, clientId: string, secret: string): Promise<{ status: number; token?: string }> {
  const res = await fetch(`${url}/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  const body = (await res.json()) as { access_token?: string };
  return res.status === 200 && typeof body.access_token === 'string'
    ? { status: 200, token: body.access_token }
    : { status: res.status };
}

async function gatewayCall(url: string, endpointPath: string, token: string): Promise<number> {
  const res = await fetch(url + endpointPath, { headers: { authorization: `Bearer ${token}` } });
  await res.arrayBuffer();
  return res.status;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The mixed load, from several loops at once, until the server is killed `loadMs` after the start.
 * Each loop stops at the first transport error (the kill). Returns the calls answered.
 */
async function loadUntilKilled(
  server: Server,
  fixture: Fixture,
  expected: Expected,
  trial: number,
  loadMs: number,
  problems: Problem[],
): Promise<number> {
  const { url } = server;
  let killed = false;
  let answered = 0;
  const loop = async (step: () => Promise<void>) => {
    while (!killed) {
      try {
        await step();
        answered += 1;
      } catch {
        return; // the kill cut it: not acknowledged
      }
    }
  };

  const webhookSender = (sender: number) => {
    let n = 0;
    return loop(async () => {
      const key = `${trial}-w${sender}-${n++}`;
      expected.webhooksSent.add(key);
      const res = await call(url, 'POST', fixture.hookPath, { key });
      if (res.status === 200 && res.body?.status === 'ok') expected.webhooksAcked.add(key);
      else if (res.status === 429) await pause(20);
    });
  };

  const publisher = (p: number) => {
    const name = `${trial}-p${p}`;
    const record = { sent: new Set<number>(), acked: new Set<number>() };
    expected.published.set(name, record);
    let seq = 0;
    return loop(async () => {
      const n = seq++;
      record.sent.add(n);
      const res = await call(url, 'POST', `/api/v1/topics/${fixture.topicId}/publish`, { publisher: name, seq: n });
      if (res.status === 200 && typeof res.body?.message_id === 'string') record.acked.add(n);
    });
  };

  // A consumer following the topic during the load: what it is given must be in order, once.
  const consumer = () => {
    let cursor: string | undefined;
    const since = new Date().toISOString();
    const last = new Map<string, number>();
    return loop(async () => {
      const res = await call(url, 'POST', `/api/v1/topics/${fixture.topicId}/consume`, {
        ...(cursor ? { after_message_id: cursor } : { since_time: since }),
        timeout_secs: 1,
      });
      if (res.status !== 200) return;
      for (const message of res.body.messages as Array<{
        message_id: string;
        payload: { publisher: string; seq: number };
      }>) {
        cursor = message.message_id;
        const previous = last.get(message.payload.publisher);
        if (previous !== undefined && message.payload.seq <= previous) {
          problems.push({
            trial,
            kind: message.payload.seq === previous ? 'duplicate' : 'out_of_order',
            detail: `a consumer was given ${message.payload.publisher} #${message.payload.seq} after #${previous}`,
          });
        }
        last.set(message.payload.publisher, message.payload.seq);
      }
    });
  };

  const rowWriter = (writer: number) => {
    let n = 0;
    return loop(async () => {
      const key = `${trial}-r${writer}-${n++}`;
      expected.rowsSent.add(key);
      const res = await call(url, 'POST', `/api/lookup_tables/${fixture.tableId}/rows`, {
        data: { key, trial: String(trial) },
      });
      if (res.status === 200) expected.rowsAcked.add(key);
    });
  };

  // Tokens of profile A, each used once through the gateway; a sample is kept to try after the restart.
  let tokensIssued = 0;
  const tokenUser = () =>
    loop(async () => {
      const issued = await issueToken(url, fixture.a.clientId, fixture.a.secret);
      if (!issued.token) return;
      tokensIssued += 1;
      if (tokensIssued <= 3 || Math.random() < 0.05) expected.validTokens.push(issued.token);
      const status = await gatewayCall(url, fixture.endpointPath, issued.token);
      if (status !== 200)
        problems.push({
          trial,
          kind: 'token_refused',
          detail: `a token just issued was answered ${status} by the gateway`,
        });
    });

  // Profile B: a token, then a new secret (which voids the old secret and its tokens), again and again.
  const revoker = () =>
    loop(async () => {
      const b = fixture.b;
      if (b.secret === undefined) return;
      const issued = await issueToken(url, b.clientId, b.secret);
      if (issued.token) b.tokens.push(issued.token);
      const old = b.secret;
      b.secret = undefined; // unknown until the refresh is answered
      const refreshed = await call(url, 'PUT', `/api/api_access_profiles/${b.profileId}/refresh_secret`);
      if (refreshed.status !== 200) throw new Error(`refresh_secret answered ${refreshed.status}`);
      b.secret = refreshed.body.oauth_client_secret as string;
      expected.revokedSecrets.push(old);
      expected.revokedTokens.push(...b.tokens);
      b.tokens = [];
      await pause(50);
    });

  const loops = [
    webhookSender(0),
    webhookSender(1),
    webhookSender(2),
    publisher(0),
    publisher(1),
    consumer(),
    rowWriter(0),
    rowWriter(1),
    tokenUser(),
    revoker(),
  ];
  await pause(loadMs);
  await kill(server);
  killed = true;
  await Promise.all(loops);
  return answered;
}

interface Snapshot {
  webhooks: number;
  rows: number;
  validTokens: number;
  revokedTokens: number;
  revokedSecrets: number;
}

function snapshot(expected: Expected): Snapshot {
  return {
    webhooks: expected.webhooksAcked.size,
    rows: expected.rowsAcked.size,
    validTokens: expected.validTokens.length,
    revokedTokens: expected.revokedTokens.length,
    revokedSecrets: expected.revokedSecrets.length,
  };
}

/** Everything acknowledged in this data directory so far, checked on the restarted server. */
async function verify(
  url: string,
  dataDir: string,
  fixture: Fixture,
  expected: Expected,
  trial: number,
  summary: TrialSummary,
  before: Snapshot,
): Promise<void> {
  const problem = (kind: ProblemKind, detail: string) => summary.problems.push({ trial, kind, detail });

  // Webhooks: one job per acknowledged event, and every job ends.
  const deadline = Date.now() + 300_000;
  for (;;) {
    const pending = await must(url, 'GET', `/api/recipes/${fixture.recipeId}/jobs?status=pending&per_page=1`);
    if (pending.job_scope_count === 0) break;
    if (Date.now() > deadline) {
      problem('unfinished', `${pending.job_scope_count} job(s) still pending 300 s after the restart`);
      break;
    }
    await pause(50);
  }
  const db = new DatabaseSync(path.join(dataDir, 'switchboard.sqlite'), { readOnly: true });
  let jobs: Array<{ trigger_output: string; status: string; error_parts: string | null }>;
  try {
    jobs = db
      .prepare('select trigger_output, status, error_parts from jobs where recipe_id = ?')
      .all(fixture.recipeId) as typeof jobs;
  } finally {
    db.close();
  }
  const jobCount = new Map<string, number>();
  for (const job of jobs) {
    const key = String((JSON.parse(job.trigger_output) as { payload?: { key?: unknown } }).payload?.key);
    jobCount.set(key, (jobCount.get(key) ?? 0) + 1);
    const interrupted =
      job.status === 'failed' &&
      (JSON.parse(job.error_parts ?? '{}') as { error_type?: string }).error_type === 'Interrupted';
    if (job.status !== 'succeeded' && !interrupted)
      problem('unfinished', `the job of webhook ${key} ended ${job.status}`);
  }
  countOnce('webhook', expected.webhooksAcked, expected.webhooksSent, jobCount, problem);
  summary.checked.webhookJobs = expected.webhooksAcked.size - before.webhooks;

  // Topic messages: all of them, from the oldest, in order and once each.
  const seen = new Map<string, number[]>();
  let cursor: string | undefined;
  for (;;) {
    const res = await must(url, 'POST', `/api/v1/topics/${fixture.topicId}/consume`, {
      ...(cursor ? { after_message_id: cursor } : {}),
      batch_size: 50,
    });
    const messages = res.messages as Array<{ message_id: string; payload: { publisher: string; seq: number } }>;
    if (messages.length === 0) break;
    for (const message of messages) {
      const list = seen.get(message.payload.publisher) ?? [];
      list.push(message.payload.seq);
      seen.set(message.payload.publisher, list);
    }
    cursor = messages.at(-1)?.message_id;
  }
  for (const [name, seqs] of seen) {
    const record = expected.published.get(name);
    if (!record) {
      problem('unexpected', `messages of publisher ${name}, which never published`);
      continue;
    }
    for (let i = 1; i < seqs.length; i++) {
      const [prev, next] = [seqs[i - 1] as number, seqs[i] as number];
      if (next === prev) problem('duplicate', `message ${name} #${next} is in the topic twice`);
      else if (next < prev) problem('out_of_order', `message ${name} #${next} comes after #${prev}`);
    }
    for (const seq of seqs)
      if (!record.sent.has(seq)) problem('unexpected', `message ${name} #${seq} was never published`);
  }
  let messagesThisTrial = 0;
  for (const [name, record] of expected.published) {
    const present = new Set(seen.get(name) ?? []);
    for (const seq of record.acked)
      if (!present.has(seq)) problem('lost', `message ${name} #${seq} was acknowledged and is not in the topic`);
    if (name.startsWith(`${trial}-`)) messagesThisTrial += record.acked.size;
  }
  summary.checked.messages = messagesThisTrial;

  // Lookup table rows: each acknowledged row once.
  const rowCount = new Map<string, number>();
  for (let page = 1; ; page++) {
    const rows = (await must(
      url,
      'GET',
      `/api/lookup_tables/${fixture.tableId}/rows?per_page=1000&page=${page}`,
    )) as Array<{ data: { key: string } }>;
    for (const row of rows) rowCount.set(row.data.key, (rowCount.get(row.data.key) ?? 0) + 1);
    if (rows.length < 1000) break;
  }
  countOnce('row', expected.rowsAcked, expected.rowsSent, rowCount, problem);
  summary.checked.rows = expected.rowsAcked.size - before.rows;

  // Tokens: those acknowledged still open the gateway; those revoked stay refused, and so do the old secrets.
  for (const token of expected.validTokens.slice(before.validTokens)) {
    const status = await gatewayCall(url, fixture.endpointPath, token);
    if (status !== 200) problem('token_refused', `an acknowledged token was answered ${status} after the restart`);
  }
  summary.checked.validTokens = expected.validTokens.length - before.validTokens;
  for (const token of expected.revokedTokens.slice(before.revokedTokens)) {
    const status = await gatewayCall(url, fixture.endpointPath, token);
    if (status !== 401)
      problem('revocation_undone', `a token of a refreshed secret was answered ${status} after the restart`);
  }
  summary.checked.revokedTokens = expected.revokedTokens.length - before.revokedTokens;
  // The token endpoint allows a client id ten failed authentications a minute: the latest two old secrets are tried.
  const oldSecrets = expected.revokedSecrets.slice(Math.max(before.revokedSecrets, expected.revokedSecrets.length - 2));
  for (const secret of oldSecrets) {
    const issued = await issueToken(url, fixture.b.clientId, secret);
    if (issued.status !== 401)
      problem(
        'revocation_undone',
        `an old secret was answered ${issued.status} by the token endpoint after the restart`,
      );
  }
  summary.checked.revokedSecrets = oldSecrets.length;
}

/** Every acknowledged key exactly once; anything present was at least sent. */
function countOnce(
  what: string,
  acked: Set<string>,
  sent: Set<string>,
  count: Map<string, number>,
  problem: (kind: ProblemKind, detail: string) => void,
): void {
  for (const key of acked) if (!count.has(key)) problem('lost', `${what} ${key} was acknowledged and is missing`);
  for (const [key, n] of count) {
    if (n > 1) problem('duplicate', `${what} ${key} is there ${n} times`);
    if (!sent.has(key)) problem('unexpected', `${what} ${key} was never sent`);
  }
}

/** The API the gateway endpoint proxies to: a small JSON answer. */
async function startUpstream(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 42, path: req.url }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
