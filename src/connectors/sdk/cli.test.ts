// `switchboard connector exec` and `connector check`, run as a developer runs them: the SDK
// documentation's sample connector (Chargebee-demo, from "Running actions on CLI") against a
// local stand-in of its API, reached over HTTPS through the proxy the environment names.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sqliteOnly } from '../../../test/test-database.ts';
import { tempDir } from '../../../test/helpers.ts';
import { startChargebee, STAND_IN_CA_FILE, type ChargebeeStandIn } from '../../../test/stand-ins/chargebee.ts';

// The Ruby runtime uses no database: its tests run once, in the SQLite suite.
const NO_DATABASE = sqliteOnly('the Ruby runtime uses no database');

const ROOT = path.resolve(import.meta.dirname, '../../..');
const API_KEY = 'test_cbKey_9f8e7d6c5b4a';

const SAMPLE = String.raw`{
  title: 'Chargebee-demo',

  connection: {
    fields: [
      {
        name: 'api_key',
        control_type: 'password',
        hint: 'You can find your API key ' \
          "under 'Settings'=>'Configure Chargebee'=>'API Keys and Webhooks'" \
          " in Chargebee's web console.",
        label: 'Your API Key'
      },
      {
        name: 'domain',
        control_type: 'subdomain',
        url: 'chargebee.com'
      }
    ],

    authorization: {
      type: 'basic_auth',

      apply: lambda do |connection|
        user(connection['api_key'])
      end
    },

    base_uri: lambda do |connection|
      "https://#{connection['domain']}.chargebee.com"
    end
  },

  test: lambda do |_connection|
    get('/api/v2/plans', limit: 1)
  end,

  methods: {
    sample_method: lambda do |string1, string2|
      string1 + ' ' + string2
    end
  },

  actions: {
    search_customers: {
      title: 'Search customers',
      subtitle: 'Search for customers using name',
      description: 'Search customer in Chargebee',

      input_fields: lambda do |_object_definitions|
        [
          { name: 'name', label: 'Name to query by', hint: 'Provide the name of the customer to query' },
          { name: 'id', label: 'Name to query by', hint: 'Provide the name of the customer to query' }
        ]
      end,

      execute: lambda do |_connection, input, _input_schema, _output_schema|
        get('/api/v2/customers', input)
      end,

      output_fields: lambda do |_object_definitions|
        [{ name: 'first_name' }, { name: 'last_name' }, { name: 'id' }]
      end
    }
  }
}
`;

let chargebee: ChargebeeStandIn;
const dir = tempDir('sb-connector-cli-');
const file = (name: string, text: string) => {
  fs.writeFileSync(path.join(dir, name), text);
  return path.join(dir, name);
};

before(async () => {
  chargebee = await startChargebee(API_KEY);
  file('connector.rb', SAMPLE);
  file('settings.yaml', `api_key: ${API_KEY}\ndomain: test\n`);
  file('wrong.yaml', `api_key: not_the_key\ndomain: test\n`);
  file('input.json', JSON.stringify({ name: 'bennett', limit: 1 }));
  file('args.json', JSON.stringify(['hello', 'world']));
});
after(async () => {
  await chargebee.close();
});

/** Runs the command line in the directory of the connector, behind the stand-in's proxy. */
function exec(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(ROOT, 'src/cli.ts'), ...args],
      {
        cwd: dir,
        env: {
          PATH: process.env.PATH,
          DATA_DIR: path.join(dir, 'data'),
          HTTPS_PROXY: chargebee.proxyUrl,
          SSL_CERT_FILE: STAND_IN_CA_FILE,
        },
        timeout: 120_000,
      },
      (error, stdout, stderr) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

describe('switchboard connector exec', { skip: NO_DATABASE }, () => {
  test('test: the documentation sample connects through the proxy with basic auth and prints the answer', async () => {
    const run = await exec(['connector', 'exec', 'test', '--settings', 'settings.yaml']);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), {
      list: [{ plan: { id: 'basic', name: 'Basic', price: 1000, period: 1, period_unit: 'month', object: 'plan' } }],
    });
    assert.ok(chargebee.tunnels.includes('test.chargebee.com:443'), `tunnels: ${chargebee.tunnels.join(', ')}`);
    const request = chargebee.requests.at(-1)!;
    assert.equal(request.url, '/api/v2/plans?limit=1');
    assert.equal(request.authorization, `Basic ${Buffer.from(`${API_KEY}:`).toString('base64')}`);
  });

  test('actions.NAME.execute with --input, --output and --verbose: the requests shown, the key never', async () => {
    const run = await exec([
      'connector',
      'exec',
      'actions.search_customers.execute',
      '--settings',
      'settings.yaml',
      '--input',
      'input.json',
      '--output',
      'out.json',
      '--verbose',
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, '');
    const out = JSON.parse(fs.readFileSync(path.join(dir, 'out.json'), 'utf8'));
    assert.equal(out.list[0].customer.first_name, 'John');
    assert.equal(out.next_offset, '["1"]');
    assert.equal(chargebee.requests.at(-1)!.url, '/api/v2/customers?limit=1&name=bennett');
    assert.match(run.stderr, /SETTINGS/);
    assert.match(run.stderr, /"api_key": "\[MASKED\]"/);
    assert.match(run.stderr, /INPUT/);
    assert.match(run.stderr, /--> GET https:\/\/test\.chargebee\.com\/api\/v2\/customers\?limit=1&name=bennett/);
    assert.match(run.stderr, /Authorization: \[MASKED\]/);
    assert.match(run.stderr, /<-- 200/);
    assert.ok(!run.stderr.includes(API_KEY), 'the API key is never printed');
    assert.ok(!run.stderr.includes(Buffer.from(`${API_KEY}:`).toString('base64')), 'nor its basic credentials');
  });

  test('input_fields, methods with --args', async () => {
    const [fields, method] = await Promise.all([
      exec(['connector', 'exec', 'actions.search_customers.input_fields']),
      exec(['connector', 'exec', 'methods.sample_method', '--args', 'args.json']),
    ]);
    assert.equal(fields.code, 0, fields.stderr);
    assert.deepEqual(
      JSON.parse(fields.stdout).map((f: { name: string }) => f.name),
      ['name', 'id'],
    );
    assert.equal(method.code, 0, method.stderr);
    assert.equal(JSON.parse(method.stdout), 'hello world');
  });

  test('a lambda that fails exits 1 with its message; bad usage exits 2', async () => {
    const wrong = await exec(['connector', 'exec', 'test', '--settings', 'wrong.yaml']);
    assert.equal(wrong.code, 1);
    assert.match(
      wrong.stderr,
      /^connector\.rb \(test\): 401 Unauthorized: \{"message":"Sorry, authentication failed\. Invalid api key"/m,
    );

    // Usage errors are found before Ruby starts: run together.
    const cases = [
      [['connector', 'exec', 'actions..execute'], /is not a path/],
      [['connector', 'exec', 'test', '--connector', 'missing.rb'], /cannot read the connector missing\.rb: ENOENT/],
      [['connector', 'exec', 'test', '--input', 'connector.rb'], /the input file connector\.rb is not JSON/],
      [['connector', 'exec', 'test', '--settings', 'settings.yaml.enc'], /encrypted settings files are not read/],
      [['connector', 'exec'], /expected PATH/],
      [['connector', 'exec', 'test', '--bogus'], /Unknown option '--bogus'/],
    ] as const;
    const runs = await Promise.all(cases.map(([args]) => exec([...args])));
    runs.forEach((run, i) => {
      const [args, pattern] = cases[i]!;
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, pattern);
    });
  });
});

describe('switchboard connector check', { skip: NO_DATABASE }, () => {
  test("every action's and trigger's fields evaluated: the sample passes, a broken connector lists what fails", async () => {
    const ok = await exec(['connector', 'check', 'connector.rb']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout, 'Chargebee-demo: 1 actions, 0 triggers, 2 field lists evaluated, 0 failed\n');

    file(
      'broken.rb',
      String.raw`{
  title: 'Broken',
  actions: {
    good: { execute: lambda { |c, i| {} }, input_fields: lambda { [{ name: 'a' }] } },
    bad_fields: { execute: lambda { |c, i| {} }, input_fields: lambda { |od| od['missing'] } },
    no_execute: { title: 'No execute' },
    nameless: { execute: lambda { |c, i| {} }, output_fields: lambda { [{ label: 'no name' }] } }
  },
  triggers: {
    nothing: { title: 'Neither poll nor webhook' }
  }
}`,
    );
    const broken = await exec(['connector', 'check', 'broken.rb']);
    assert.equal(broken.code, 1);
    assert.match(broken.stdout, /^Broken: 4 actions, 1 triggers, 10 field lists evaluated, 4 failed$/m);
    assert.match(broken.stdout, /broken\.rb: actions\.no_execute has no execute lambda/);
    assert.match(broken.stdout, /broken\.rb: triggers\.nothing has neither a poll nor a webhook_notification lambda/);
    assert.match(
      broken.stdout,
      /broken\.rb \(actions\.bad_fields\.input_fields, line 5\): the connector has no object definition named missing/,
    );
    assert.match(broken.stdout, /broken\.rb \(actions\.nameless\.output_fields\): field 1 has no name/);
  });
});

// A service that rotates refresh tokens (as RFC 6749 §10.4 allows): each refresh answers a new
// access token and a new refresh token and spends the old one, so a second run works only when the
// first wrote what it got into the settings file.
const ROTATING = String.raw`{
  title: 'Rotating',
  connection: {
    fields: [{ name: 'base' }, { name: 'client_id' }, { name: 'client_secret', control_type: 'password' }],
    authorization: {
      type: 'oauth2',
      authorization_url: lambda { |c| "#{c['base']}/authorize" },
      refresh: lambda do |connection, refresh_token|
        post("#{connection['base']}/token")
          .payload(grant_type: 'refresh_token', refresh_token: refresh_token,
                   client_id: connection['client_id'], client_secret: connection['client_secret'])
          .request_format_www_form_urlencoded
      end,
      apply: lambda { |_c, access_token| headers(Authorization: "Bearer #{access_token}") }
    },
    base_uri: lambda { |c| c['base'] }
  },
  test: lambda { |_c| get('/me') }
}`;

describe(
  'switchboard connector exec: new connection values written to the settings file',
  { skip: NO_DATABASE },
  () => {
    let server: http.Server;
    let base = '';
    const refreshTokensSeen: string[] = [];
    let access = 'a0';
    let refresh = 'r1';
    let issued = 1;

    before(async () => {
      server = http.createServer((req, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString()));
        req.on('end', () => {
          const answer = (status: number, value: unknown) => {
            res.writeHead(status, { 'content-type': 'application/json' });
            res.end(JSON.stringify(value));
          };
          if (req.method === 'POST' && req.url === '/token') {
            const form = new URLSearchParams(body);
            refreshTokensSeen.push(form.get('refresh_token') ?? '');
            if (form.get('grant_type') !== 'refresh_token' || form.get('client_secret') !== 'cs-secret')
              return answer(400, { error: 'invalid_request' });
            if (form.get('refresh_token') !== refresh) return answer(400, { error: 'invalid_grant' });
            issued++;
            access = `a${issued}`;
            refresh = `r${issued}`;
            return answer(200, {
              access_token: access,
              refresh_token: refresh,
              token_type: 'Bearer',
              expires_in: 3600,
            });
          }
          if (req.url === '/me')
            return req.headers.authorization === `Bearer ${access}`
              ? answer(200, { id: 'me' })
              : answer(401, { error: 'invalid_token' });
          answer(404, {});
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      file('rotating.rb', ROTATING);
    });
    after(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    function execPlain(args: string[]) {
      return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          process.execPath,
          [path.join(ROOT, 'src/cli.ts'), ...args],
          { cwd: dir, env: { PATH: process.env.PATH, DATA_DIR: path.join(dir, 'data') }, timeout: 120_000 },
          (error, stdout, stderr) =>
            resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      });
    }

    test('a refresh during exec is written back (other keys kept); the second exec uses the rotated token', async () => {
      const settingsFile = file(
        'rotating.json',
        JSON.stringify({
          base,
          client_id: 'cid',
          client_secret: 'cs-secret',
          note: 'kept',
          access_token: 'stale',
          refresh_token: 'r1',
        }),
      );
      const first = await execPlain([
        'connector',
        'exec',
        'test',
        '--connector',
        'rotating.rb',
        '--settings',
        'rotating.json',
      ]);
      assert.equal(first.code, 0, first.stderr);
      assert.deepEqual(JSON.parse(first.stdout), { id: 'me' });
      assert.match(first.stderr, /rotating\.json: updated with the connection's new values/);
      const written = JSON.parse(fs.readFileSync(settingsFile, 'utf8'));
      assert.equal(written.access_token, 'a2');
      assert.equal(written.refresh_token, 'r2');
      assert.equal(written.note, 'kept');
      assert.equal(written.client_secret, 'cs-secret');
      assert.ok(!first.stderr.includes('a2') && !first.stderr.includes('cs-secret'), 'no token printed');

      access = 'expired-by-the-service'; // the service ends the access token: the next run must refresh with r2
      const second = await execPlain([
        'connector',
        'exec',
        'test',
        '--connector',
        'rotating.rb',
        '--settings',
        'rotating.json',
      ]);
      assert.equal(second.code, 0, second.stderr);
      assert.deepEqual(refreshTokensSeen, ['r1', 'r2']);
      assert.equal(JSON.parse(fs.readFileSync(settingsFile, 'utf8')).refresh_token, 'r3');
    });

    test('with --connection, only that entry of a YAML file changes; without a refresh the file is untouched', async () => {
      const yamlFile = file(
        'several.yaml',
        `# connections\nother:\n  api_key: untouched\nrotating:\n  base: ${base}\n  client_id: cid\n  client_secret: cs-secret\n  access_token: stale\n  refresh_token: ${refresh}\n`,
      );
      const run = await execPlain([
        'connector',
        'exec',
        'test',
        '--connector',
        'rotating.rb',
        '--settings',
        'several.yaml',
        '--connection',
        'rotating',
      ]);
      assert.equal(run.code, 0, run.stderr);
      const { parse } = await import('yaml');
      const written = parse(fs.readFileSync(yamlFile, 'utf8')) as Record<string, Record<string, string>>;
      assert.deepEqual(written.other, { api_key: 'untouched' });
      assert.equal(written.rotating!.refresh_token, refresh);
      assert.equal(written.rotating!.access_token, access);

      const before = fs.readFileSync(yamlFile, 'utf8');
      const again = await execPlain([
        'connector',
        'exec',
        'test',
        '--connector',
        'rotating.rb',
        '--settings',
        'several.yaml',
        '--connection',
        'rotating',
      ]);
      assert.equal(again.code, 0, again.stderr);
      assert.equal(fs.readFileSync(yamlFile, 'utf8'), before);
      assert.doesNotMatch(again.stderr, /updated with/);
    });
  },
);
