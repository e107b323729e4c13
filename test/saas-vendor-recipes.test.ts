// Recipes written in the vendor's export format (test/fixtures/recipes/written, SOURCES.md) over
// SaaS connectors: Gmail → Google Drive, Google Sheets → SendGrid, Outlook → Google Drive. Each is
// imported unchanged through the recipes API (its connections found by the names its `config`
// references), started, and run through its webhook against the services' stand-ins; what each
// service holds afterwards is checked.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { TestApp } from './helpers.ts';
import { readJob, type RanJob } from './recipes.ts';
import { googleData } from './stand-ins/google-workspace.ts';
import { startMailFilesApp } from './stand-ins/mail-files-app.ts';
import { outlookOf } from './stand-ins/microsoft.ts';
import { sendgridOf } from './stand-ins/sendgrid.ts';
import type { StandIn } from './stand-ins/stand-in.ts';
import { parseMime } from './stand-ins/mime.ts';

let t: TestApp;
let google: StandIn;
let microsoft: StandIn;
let sendgrid: StandIn;
let close: () => Promise<void>;

before(async () => {
  ({ t, google, microsoft, sendgrid, close } = await startMailFilesApp());
});
after(() => close());

describe("recipes written in the vendor's export format, imported unchanged and run against the stand-ins", () => {
  const DIR = new URL('./fixtures/recipes/written/', import.meta.url);

  async function importAndStart(file: string): Promise<{ id: number; path: string }> {
    const created = await t.call('POST', '/api/recipes', {
      raw: readFileSync(new URL(file, DIR), 'utf8'),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(created.status, 200, `${file}: ${created.text}`);
    const started = await t.call('PUT', `/api/recipes/${created.body.id}/start`);
    assert.deepEqual(started.body, { success: true }, `${file}: ${started.text}`);
    const recipe = await t.call('GET', `/api/recipes/${created.body.id}`);
    return { id: created.body.id as number, path: new URL(recipe.body.webhook_url as string).pathname };
  }

  async function lastJob(recipeId: number): Promise<RanJob> {
    const row = await t.ctx.db
      .selectFrom('jobs')
      .select('id')
      .where('recipe_id', '=', recipeId)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    return readJob(t, row.id);
  }

  async function post(path: string, payload: Record<string, unknown>): Promise<void> {
    const res = await t.app.inject({ method: 'POST', url: path, payload });
    assert.equal(res.statusCode, 200, res.body);
    await t.engine.idle();
  }

  test('Gmail attachments to Google Drive', async () => {
    const { id, path } = await importAndStart('gmail_attachments_to_drive.recipe.json');
    const filesBefore = googleData(google).files.length;
    await post(path, { message_id: 'm1', folder_id: 'folder-invoices' });
    const job = await lastJob(id);
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const added = googleData(google).files.slice(filesBefore);
    assert.deepEqual(
      added.map((f) => [f.name, f.parents, f.mimeType, f.content.toString('utf8')]),
      [['invoice-42.txt', ['folder-invoices'], 'text/plain', 'Invoice 42: 100.00 EUR\n']],
    );
    const inFolder = googleData(google).files.filter((f) => f.parents.includes('folder-invoices')).length;
    const notice = parseMime(googleData(google).sent.at(-1) ?? '');
    assert.equal(notice.headers.To, 'ops@acme.example');
    assert.equal(notice.headers.Subject, `Filed ${inFolder} file(s) from Gmail message m1`);
    assert.deepEqual(notice.parts, ['Folder folder-invoices now holds them.']);
  });

  test('Google Sheets sign-ups to SendGrid', async () => {
    googleData(google).sheets.set(
      '1SignupsBxiMVs0XRA5nFMdKvBdBZjgmUUqpt',
      new Map([
        [
          'Signups',
          [
            ['Name', 'Email', 'Status', 'Message ID'],
            ['Dee', 'dee@example.com', 'New'],
            ['Eli', 'eli@example.com', 'Welcomed', 'old'],
            ['Fay', 'fay@example.com', 'New'],
          ],
        ],
      ]),
    );
    const { id, path } = await importAndStart('sheets_signups_to_sendgrid.recipe.json');
    const mailBefore = sendgridOf(sendgrid).mail.length;
    const contactsBefore = sendgridOf(sendgrid).contacts.length;
    await post(path, { list_id: 'list-newsletter' });
    const job = await lastJob(id);
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(sendgridOf(sendgrid).contacts.slice(contactsBefore), [
      { list_ids: ['list-newsletter'], contact: { email: 'dee@example.com', first_name: 'Dee' } },
      { list_ids: ['list-newsletter'], contact: { email: 'fay@example.com', first_name: 'Fay' } },
    ]);
    assert.deepEqual(
      sendgridOf(sendgrid)
        .mail.slice(mailBefore)
        .map((m) => [(m.personalizations as Array<{ to: unknown }>)[0]?.to, m.subject]),
      [
        [[{ email: 'dee@example.com' }], 'Welcome, Dee'],
        [[{ email: 'fay@example.com' }], 'Welcome, Fay'],
      ],
    );
    assert.deepEqual(googleData(google).sheets.get('1SignupsBxiMVs0XRA5nFMdKvBdBZjgmUUqpt')?.get('Signups'), [
      ['Name', 'Email', 'Status', 'Message ID'],
      ['Dee', 'dee@example.com', 'Welcomed', 'msg-202'],
      ['Eli', 'eli@example.com', 'Welcomed', 'old'],
      ['Fay', 'fay@example.com', 'Welcomed', 'msg-202'],
    ]);
  });

  test('Outlook order attachments to Google Drive', async () => {
    const { id, path } = await importAndStart('outlook_order_attachments_to_drive.recipe.json');
    const filesBefore = googleData(google).files.length;
    const sentBefore = outlookOf(microsoft).sent.length;
    await post(path, { message_id: 'AAMkAGI2-msg1=' });
    const job = await lastJob(id);
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(
      googleData(google)
        .files.slice(filesBefore)
        .map((f) => [f.name, f.mimeType, f.content.toString('utf8')]),
      [
        ['order.csv', 'text/csv', 'sku,qty\nA-1,2\n'],
        ['notes.txt', 'text/plain', 'Deliver before noon'],
      ],
    );
    assert.deepEqual(outlookOf(microsoft).sent.slice(sentBefore), [
      {
        subject: 'Order files filed',
        body: { contentType: 'HTML', content: '<p>2 attachment(s) filed in Drive.</p>' },
        toRecipients: [{ emailAddress: { address: 'orders@acme.example' } }],
      },
    ]);
  });
});
