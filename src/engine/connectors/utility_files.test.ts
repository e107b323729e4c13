// utility (Utilities) and file_connector (File tools) through recipe runs: every action with its
// output, and bad input as the step's clear error.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { action, fire, pill, webhookRecipe } from '../../../test/recipes.ts';

let t: TestApp;
const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0x00]);
const upstream = createServer((req, res) => {
  if (req.url === '/report.csv') {
    res.setHeader('content-type', 'text/csv');
    res.end('id,name\n1,Ada\n');
  } else if (req.url === '/logo.png') {
    res.setHeader('content-type', 'image/png');
    res.end(png);
  } else if (req.url === '/big') {
    res.end(Buffer.alloc(3000, 65));
  } else {
    res.statusCode = 404;
    res.end('nothing here');
  }
});
let base = '';

before(async () => {
  t = await createTestApp({ env: { FILE_MAX_BYTES: '2048' } });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
after(async () => {
  await t.close();
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

const payload = (...path: string[]) => pill('workato_webhooks', 'hook', 'payload', ...path);

async function runOne(provider: string, name: string, input: Record<string, unknown>, body: unknown = {}) {
  const { path } = await webhookRecipe(t, [action(provider, name, 'step', input)]);
  return fire(t, path, body);
}

describe('utility', () => {
  test('log_message, format_name, create_list', async () => {
    const { path } = await webhookRecipe(t, [
      action('utility', 'log_message', 'log', { message: `hello ${payload('who')}` }),
      action('utility', 'format_name', 'name', {
        salutation: 'Dr.',
        first_name: payload('first'),
        middle_name: '',
        last_name: 'Hopper',
      }),
      action('utility', 'create_list', 'list', { list_items: payload('items') }),
    ]);
    const job = await fire(t, path, { who: 'Ada', first: 'Grace', items: [1, 'two', { three: 3 }] });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(job.output(1), { message: 'hello Ada' });
    assert.deepEqual(job.output(2), { full_name: 'Dr. Grace Hopper', name: 'Dr. Grace Hopper' });
    assert.deepEqual(job.output(3), { list: [1, 'two', { three: 3 }], list_size: 3 });
  });

  test('parse_json, parse_csv and create_csv_lines as the JSON and CSV tools do', async () => {
    const { path } = await webhookRecipe(t, [
      action('utility', 'parse_json', 'json', { document: payload('json') }),
      action('utility', 'parse_csv', 'csv', { csv_content: payload('csv'), col_sep: 'semicolon' }),
      action('utility', 'create_csv_lines', 'out', {
        lines: `#{_dp('{"pill_type":"output","provider":"utility","line":"csv","path":["lines"]}')}`,
      }),
    ]);
    const job = await fire(t, path, { json: '{"a":[1,2]}', csv: 'id;name\n1;Ada\n2;Grace\n' });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(job.output(1), { document: { a: [1, 2] } });
    assert.deepEqual((job.output(2) as { lines: unknown }).lines, [
      { id: '1', name: 'Ada' },
      { id: '2', name: 'Grace' },
    ]);
    assert.equal((job.output(3) as { csv_content: string }).csv_content, 'id,name\n1,Ada\n2,Grace\n');
  });

  test('parse_xml: simple gives a tree (a repeated tag a list, the type attribute kept); full gives every tag as a list', async () => {
    const xml =
      '<?xml version="1.0"?><list><Contact><Name type="C" lang="en"><First>Donna</First><Last>Noble</Last></Name></Contact>' +
      '<Contact><Name type="C"><First>Rose &amp; co</First></Name></Contact></list>';
    const { path } = await webhookRecipe(t, [
      action('utility', 'parse_xml', 'simple', { document: payload('xml') }),
      action('utility', 'parse_xml', 'full', { document: payload('xml'), xml_type: 'full' }),
    ]);
    const job = await fire(t, path, { xml });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(job.output(1), {
      list: {
        Contact: [{ Name: { First: 'Donna', Last: 'Noble', type: 'C' } }, { Name: { First: 'Rose & co', type: 'C' } }],
      },
    });
    const full = job.output(2) as { list: Array<{ Contact: Array<{ Name: Array<Record<string, unknown>> }> }> };
    assert.deepEqual(full.list[0]?.Contact[0]?.Name[0], {
      First: [{ 'content!': 'Donna' }],
      Last: [{ 'content!': 'Noble' }],
      '@type': 'C',
      '@lang': 'en',
    });
  });

  test('bad XML, a DOCTYPE, deep nesting and a wrong xml_type are the step error', async () => {
    const broken = await runOne('utility', 'parse_xml', { document: '<a><b></a>' });
    assert.equal(broken.errorType, 'XML error');
    assert.match(broken.error ?? '', /not valid XML: Expected closing tag 'b'/);
    const entity = await runOne('utility', 'parse_xml', {
      document: '<!DOCTYPE x [<!ENTITY a "aaaa">]><x>&a;&a;</x>',
    });
    assert.match(entity.error ?? '', /document type declaration/);
    const deep = await runOne('utility', 'parse_xml', { document: '<a>'.repeat(200) + '</a>'.repeat(200) });
    assert.match(deep.error ?? '', /nests more than 100 levels/);
    const type = await runOne('utility', 'parse_xml', { document: '<a/>', xml_type: 'fancy' });
    assert.equal(type.error, 'Bad request: xml_type must be simple or full');
    const notText = await runOne('utility', 'parse_xml', { document: payload('x') }, { x: { a: 1 } });
    assert.equal(notText.error, 'Bad request: document must be XML text');
  });

  test('read_file downloads a file; a 404 and a file over FILE_MAX_BYTES are the step error', async () => {
    const csv = await runOne('utility', 'read_file', { url: `${base}/report.csv` });
    assert.equal(csv.status, 'succeeded', csv.error ?? '');
    assert.deepEqual(csv.output(1), {
      file_name: 'report.csv',
      file_content: 'id,name\n1,Ada\n',
      content_encoding: 'utf-8',
      size: 14,
      content_type: 'text/csv',
    });
    const image = await runOne('file_connector', 'read_file', { url: `${base}/logo.png` });
    assert.deepEqual(image.output(1), {
      file_name: 'logo.png',
      file_content: png.toString('base64'),
      content_encoding: 'base64',
      size: png.length,
      content_type: 'image/png',
    });
    const missing = await runOne('file_connector', 'read_file', { url: `${base}/nope` });
    assert.equal(missing.error, 'Not found: 404: nothing here');
    const big = await runOne('file_connector', 'read_file', { url: `${base}/big` });
    assert.equal(big.errorType, 'File too large');
    const bad = await runOne('file_connector', 'read_file', { url: 'ftp://example.com/x' });
    assert.equal(bad.error, 'Bad request: the URL must be http or https');
  });
});

describe('file_connector', () => {
  test('compress_file into a zip, then uncompress_file gives the files back (text and binary)', async () => {
    const { path } = await webhookRecipe(t, [
      action('file_connector', 'compress_file', 'zip', {
        file_name: 'bundle.zip',
        files: [
          { file_name: 'notes/readme.txt', file_content: payload('text') },
          { file_name: 'logo.png', file_content: png.toString('base64'), content_encoding: 'base64' },
        ],
      }),
      action('file_connector', 'uncompress_file', 'unzip', {
        file_content: `#{_dp('{"pill_type":"output","provider":"file_connector","line":"zip","path":["file_content"]}')}`,
      }),
    ]);
    const job = await fire(t, path, { text: 'héllo' });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const zip = job.output(1) as { file_name: string; content_encoding: string; size: number };
    assert.equal(zip.file_name, 'bundle.zip');
    assert.equal(zip.content_encoding, 'base64');
    assert.deepEqual(job.output(2), {
      files: [
        { file_name: 'notes/readme.txt', file_content: 'héllo', content_encoding: 'utf-8', size: 6 },
        { file_name: 'logo.png', file_content: png.toString('base64'), content_encoding: 'base64', size: png.length },
      ],
      count: 2,
    });
  });

  test('gzip one file and back', async () => {
    const { path } = await webhookRecipe(t, [
      action('file_connector', 'compress_file', 'gz', {
        compression_format: 'gzip',
        files: [{ file_name: 'a.txt', file_content: 'aaa' }],
      }),
      action('file_connector', 'uncompress_file', 'gunzip', {
        file_name: 'a.txt.gz',
        file_content: `#{_dp('{"pill_type":"output","provider":"file_connector","line":"gz","path":["file_content"]}')}`,
      }),
    ]);
    const job = await fire(t, path, {});
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.equal((job.output(1) as { file_name: string }).file_name, 'a.txt.gz');
    assert.deepEqual(job.output(2), {
      files: [{ file_name: 'a.txt', file_content: 'aaa', content_encoding: 'utf-8', size: 3 }],
      count: 1,
    });
  });

  test('bad input: no files, an unsafe name, a wrong format, not an archive, a gzip bomb', async () => {
    const none = await runOne('file_connector', 'compress_file', { files: [] });
    assert.equal(none.error, 'Bad request: files must be a list of {file_name, file_content}');
    const unsafe = await runOne('file_connector', 'compress_file', {
      files: [{ file_name: '../etc/passwd', file_content: 'x' }],
    });
    assert.match(unsafe.error ?? '', /is not a file name/);
    const format = await runOne('file_connector', 'compress_file', {
      compression_format: 'rar',
      files: [{ file_name: 'a', file_content: 'x' }],
    });
    assert.equal(format.error, 'Bad request: compression_format must be zip or gzip');
    const tooBig = await runOne('file_connector', 'compress_file', {
      files: [{ file_name: 'a', file_content: 'x'.repeat(3000) }],
    });
    assert.equal(tooBig.errorType, 'File too large');
    const notZip = await runOne('file_connector', 'uncompress_file', {
      file_content: Buffer.from('plain text').toString('base64'),
    });
    assert.equal(notZip.errorType, 'Archive error');
    const bomb = await runOne('file_connector', 'uncompress_file', {
      file_content: gzipSync(Buffer.alloc(1_000_000)).toString('base64'),
    });
    assert.equal(bomb.error, 'File too large: the file holds more than 2048 bytes uncompressed');
    const notBase64 = await runOne('file_connector', 'uncompress_file', { file_content: '%%%' });
    assert.equal(notBase64.error, 'Bad request: file_content is not base64');
  });
});
