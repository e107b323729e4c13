// csv_parser and email through real jobs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startSmtpCapture, type SmtpCapture } from '../../../test/smtp-capture.ts';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { action, dp, fire, webhookRecipe } from '../../../test/recipes.ts';

const payload = (...path: string[]) => dp('workato_webhooks', 'hook', 'payload', ...path);

describe('csv_parser', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('parse_csv: lines keyed by the header, quoting and another separator; create_csv_lines composes it back', async () => {
    const { path } = await webhookRecipe(t, [
      action('csv_parser', 'parse_csv', 'parsed', { csv_content: `=${payload('csv')}`, col_sep: 'semicolon' }),
      action('csv_parser', 'create_csv_lines', 'made', {
        lines: `=${dp('csv_parser', 'parsed', 'lines')}`,
        col_sep: 'comma',
      }),
    ]);
    const job = await fire(t, path, { csv: 'sku;name;qty\nA-1;"Bolt; steel";4\nB-2;"Nut ""M6""";10\n' });
    assert.equal(job.status, 'succeeded', JSON.stringify(job.lines));
    assert.deepEqual(job.output(1), {
      lines: [
        { sku: 'A-1', name: 'Bolt; steel', qty: '4' },
        { sku: 'B-2', name: 'Nut "M6"', qty: '10' },
      ],
      line_count: 2,
      columns: ['sku', 'name', 'qty'],
    });
    assert.deepEqual(job.output(2), {
      csv_content: 'sku,name,qty\nA-1,Bolt; steel,4\nB-2,"Nut ""M6""",10\n',
      line_count: 2,
    });
  });

  test('broken quoting, a short line, a bad separator: the step fails with the reason', async () => {
    const { path } = await webhookRecipe(t, [
      action('csv_parser', 'parse_csv', 'parsed', { csv_content: `=${payload('csv')}`, col_sep: `=${payload('sep')}` }),
    ]);
    assert.match((await fire(t, path, { csv: 'a,b\n"open,2\n', sep: 'comma' })).error ?? '', /CSV error: .*quote/i);
    assert.match((await fire(t, path, { csv: 'a,b\n1\n', sep: 'comma' })).error ?? '', /CSV error: /);
    assert.match(
      (await fire(t, path, { csv: 'a,b\n1,2\n', sep: 'dash-dash' })).error ?? '',
      /col_sep must be one character/,
    );
  });
});

describe('email send_mail', () => {
  let smtp: SmtpCapture;
  let t: TestApp;
  let without: TestApp;
  before(async () => {
    smtp = await startSmtpCapture();
    t = await createTestApp({ env: { SMTP_URL: smtp.url, SMTP_FROM: 'Ops <ops@acme.example.com>' } });
    without = await createTestApp();
  });
  after(async () => {
    await t.close();
    await without.close();
    await smtp.close();
  });

  test('sends through SMTP_URL to every recipient; no recipient, a bad address, or no SMTP fail the step', async () => {
    const steps = [
      action('email', 'send_mail', 'mail', {
        to: `=${payload('to')}`,
        subject: 'Order #{' + payload('id') + '} shipped',
        body: '<p>Your order is on its way</p>',
        email_type: 'html',
      }),
    ];
    const { path } = await webhookRecipe(t, steps);
    const job = await fire(t, path, { to: 'ana@example.com, bo@example.com', id: 'A-9' });
    assert.equal(job.status, 'succeeded', JSON.stringify(job.lines));
    assert.deepEqual(job.output(1), { to: 'ana@example.com, bo@example.com', subject: 'Order A-9 shipped' });
    assert.equal(smtp.mails.length, 1);
    assert.deepEqual(smtp.mails[0]!.to, ['ana@example.com', 'bo@example.com']);
    assert.match(smtp.mails[0]!.raw, /Subject: Order A-9 shipped/);
    assert.match(smtp.mails[0]!.raw, /text\/html/);
    assert.match((await fire(t, path, { to: '', id: 1 })).error ?? '', /to must name at least one recipient|To/);
    assert.match(
      (await fire(t, path, { to: 'not-an-address', id: 1 })).error ?? '',
      /"not-an-address" is not an e-mail address/,
    );
    const none = await webhookRecipe(without, steps);
    assert.match((await fire(without, none.path, { to: 'ana@example.com', id: 1 })).error ?? '', /SMTP_URL is not set/);
    assert.equal(smtp.mails.length, 1, 'nothing else was sent');
  });
});
