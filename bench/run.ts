// Benchmarks: `npm run bench -- <name> [options]`. Each prints its figures; none is part of npm test.
import { comparison, databaseOption, resetPostgresServer, useDatabase } from './database.ts';

// `postgres`: the benchmark opens its database through platform.ts or database.ts (a server it
// starts, or the app in this process), so `--database postgres` runs it on both databases. Every
// benchmark has it; `nodes` runs on PostgreSQL alone.
const BENCHMARKS: Record<
  string,
  { summary: string; postgres?: true; load: () => Promise<{ main(args: string[]): Promise<void> }> }
> = {
  datatables: {
    summary:
      'data tables through recipe steps: records inserted per second (add_record, create_records_batch) and searches per second (get_records), each beside the lookup-table action [--jobs N --records N --batch N]',
    postgres: true,
    load: () => import('./datatables.ts'),
  },
  lookup: {
    summary:
      'lookup tables at 1,000,000 rows: lookup latency by one and two columns, row adds per second [--rows N --lookups N --adds N --concurrency N]',
    postgres: true,
    load: () => import('./lookup.ts'),
  },
  token: {
    summary: 'POST /oauth2/token: tokens issued per second beside a bare Fastify route [--seconds N --connections N]',
    postgres: true,
    load: () => import('./token.ts'),
  },
  gateway: {
    summary:
      'gateway calls per second through a proxy collection (OAuth token, then an RS256 JWT) beside a bare Fastify proxy [--seconds N --connections N]',
    postgres: true,
    load: () => import('./gateway.ts'),
  },
  pubsub: {
    summary:
      'event streams: single and batch publishes per second, publish-to-delivery latency [--seconds N --connections N]',
    postgres: true,
    load: () => import('./pubsub.ts'),
  },
  jobs: {
    summary:
      'recipe jobs: a five-step webhook recipe driven at full speed, jobs/s and webhook-to-done latency; --overload: twice the sustainable rate, accepted, refused (429) and lost events; --js, --py, --ruby: a JavaScript (Python, Ruby) step beside a logger, jobs/s and the step time [--seconds N --connections N --overload | --js | --py | --ruby]',
    postgres: true,
    load: () => import('./jobs.ts'),
  },
  nodes: {
    summary:
      'several nodes on one PostgreSQL: jobs/s with one node and with two, and how long until every node refuses a regenerated token (p50, p99) [--seconds N --connections N --rounds N]',
    postgres: true,
    load: () => import('./nodes.ts'),
  },
  tests: {
    summary:
      'test automation: 200 test cases over 20 recipes in one run request, seconds until complete, beside 200 ordinary jobs [--recipes N --cases N]',
    postgres: true,
    load: () => import('./tests.ts'),
  },
  packages: {
    summary:
      'recipe lifecycle packages: a project of 500 recipes, 20 connections and 5 lookup tables of 100,000 rows exported with data, downloaded and imported; seconds of each phase and the server peak memory [--recipes N --connections N --tables N --rows N]',
    postgres: true,
    load: () => import('./packages.ts'),
  },
  console: {
    summary:
      "web console with 1,000,000 jobs: server time of the job list, a job page and the dashboard beside the API's job list, and the first page load's bytes [--jobs N --samples N]",
    postgres: true,
    load: () => import('./console.ts'),
  },
  connectors: {
    summary:
      "SaaS connectors' named actions (a Salesforce SOQL search, a Slack post) in jobs/s beside the HTTP connector making the same request; custom connectors: jobs of a custom connector's action beside the HTTP connector's (first custom step of a fresh server, step p50 one job at a time, jobs/s at full speed); the Ruby runtime alone: the first call of a fresh process, a call's p50/p99 and calls/s beside the same GET made directly, a workspace switch on one interpreter, each Ruby worker's memory [--jobs N --saas-only --custom-only --seconds N --connections N --sequential N --calls N --concurrency N]",
    load: () => import('./connectors.ts'),
  },
  agents: {
    summary:
      "MCP tool calls per second against a skill recipe and an endpoint recipe beside the same steps through the API endpoint; the agent loop's own time per turn beside the stand-in model's [--seconds N --connections N --turns N --runs N]",
    postgres: true,
    load: () => import('./agents.ts'),
  },
  footprint: {
    summary:
      "start-to-ready and idle memory of an empty server, after each area's first request, after code steps and once their workers are released; then with 10,000 running recipes: start-to-ready, memory, a webhook's cost beside an empty server running alongside (alternated rounds, medians), CPU at rest, the recipes list and search; beside a bare Fastify server [--recipes N --rest S --seconds S --rounds N --round-seconds S]",
    postgres: true,
    load: () => import('./footprint.ts'),
  },
  retention: {
    summary:
      'job retention: the database size (SQLite: the file; PostgreSQL: pg_database_size) under a steady job load with a short retention, round by round [--rounds N --jobs N]',
    postgres: true,
    load: () => import('./retention.ts'),
  },
};

const [name, ...args] = process.argv.slice(2);
const benchmark = name === undefined ? undefined : BENCHMARKS[name];
if (!benchmark) {
  process.stderr.write(
    `usage: npm run bench -- <name> [options] [--database postgres [--pairs N]]\n\n${Object.entries(BENCHMARKS)
      .map(([n, b]) => `  ${n.padEnd(10)} ${b.summary}`)
      .join('\n')}\n`,
  );
  process.exitCode = name === undefined || name === '--help' ? 0 : 1;
} else {
  let options: ReturnType<typeof databaseOption>;
  try {
    options = databaseOption(args);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  }
  const { postgres, pairs, rest } = options;
  const main = (await benchmark.load()).main;
  if (!postgres || name === 'nodes') await main(rest);
  else if (!benchmark.postgres) {
    process.stderr.write(`${name} runs on SQLite only; --database postgres is not built for it\n`);
    process.exitCode = 1;
  } else {
    for (let pair = 1; pair <= pairs; pair++) {
      const of = pairs > 1 ? ` (pair ${pair} of ${pairs})` : '';
      useDatabase('sqlite', pair);
      process.stdout.write(`\n=== SQLite${of} ===\n`);
      await main(rest);
      useDatabase('postgres', pair);
      process.stdout.write(`\n=== PostgreSQL${of} ===\n`);
      await main(rest);
      if (pair < pairs) await resetPostgresServer();
    }
    const lines = comparison();
    if (lines.length > 0) process.stdout.write(`\n=== PostgreSQL beside SQLite, same run ===\n${lines.join('\n')}\n`);
  }
}
