// Named actions of Gmail, Google Sheets, Google Drive, SendGrid and Microsoft Outlook as the
// vendor's recipes store them, through recipe jobs against the stand-ins: each request checked
// as the service's reference says, each output read by the next step's datapills; the shared
// layer's answers to an expired token, a 4xx, a 429, a 5xx, a timeout and a body that is not JSON;
// bad input refused before any request. The recipes in the vendor's export format that use them run
// in saas-vendor-recipes.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestApp } from './helpers.ts';
import {
  action,
  createRecipe,
  CURRENT,
  fire,
  pill,
  webhookRecipe,
  webhookTrigger,
  type RanJob,
  type StepDoc,
} from './recipes.ts';
import { googleData } from './stand-ins/google-workspace.ts';
import { startMailFilesApp, TIMEOUT_MS } from './stand-ins/mail-files-app.ts';
import { outlookOf } from './stand-ins/microsoft.ts';
import { parseMime } from './stand-ins/mime.ts';
import { API_KEY, sendgridOf } from './stand-ins/sendgrid.ts';
import type { StandIn } from './stand-ins/stand-in.ts';

let t: TestApp;
let google: StandIn;
let microsoft: StandIn;
let sendgrid: StandIn;
let ids: Record<string, number>;
let close: () => Promise<void>;

before(async () => {
  ({ t, google, microsoft, sendgrid, ids, close } = await startMailFilesApp());
});
after(() => close());

const config = (...providers: string[]) =>
  JSON.stringify([
    { keyword: 'application', provider: 'workato_webhooks', account_id: null },
    ...providers.map((provider) => ({ keyword: 'application', provider, account_id: ids[provider] })),
  ]);

async function run(steps: StepDoc[], payload: Record<string, unknown> = {}): Promise<RanJob> {
  const providers = [...new Set(steps.map((s) => String(s.provider)))];
  const { path } = await webhookRecipe(t, steps, { config: config(...providers) });
  return fire(t, path, payload);
}

const hook = (field: string) => pill('workato_webhooks', 'hook', 'payload', field);
const SHEET = '1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgVE2upms';
const apiCount = (s: StandIn) => s.apiRequests().length;

describe('Gmail, Google Drive, Google Sheets, SendGrid and Outlook named actions through recipe jobs', () => {
  test('Gmail: search, get a message, download its attachment, store it in Drive, find and read it back, send a notice', async () => {
    const email = (...p: Array<string | { path_element_type: string }>) => pill('gmail', 'get', ...p);
    const job = await run(
      [
        action('gmail', 'search_messages', 'search', { from: hook('sender'), has_attachments: 'true', limit: '5' }),
        action('gmail', 'get_message', 'get', { messageId: pill('gmail', 'search', 'messages', CURRENT, 'messageId') }),
        action('gmail', 'download_attachment', 'attachment', {
          id: email('id'),
          attachmentId: hook('attachment'),
        }),
        action('google_drive', 'upload_file_stream', 'upload', {
          name: 'invoice-42.txt',
          content: pill('gmail', 'attachment', 'content_bytes'),
          folder_id: 'folder-invoices',
          mime_type: 'text/plain',
        }),
        action('google_drive', 'search_file_or_folder', 'find', { name: 'invoice-42', folder_id: 'folder-invoices' }),
        action('google_drive', 'download_file_contents', 'download', {
          file_id: pill('google_drive', 'find', 'files', CURRENT, 'id'),
        }),
        action('gmail', 'send_mail', 'notice', {
          to: 'Ops Team <ops@acme.example>, finance@acme.example',
          cc: 'audit@acme.example',
          subject: `Filed: ${pill('gmail', 'search', 'messages', CURRENT, 'subject')} — reçu`,
          email_type: 'html',
          message: `<p>${pill('google_drive', 'download', 'content')}</p>`,
          attachments: [{ file_name: 'copy.txt', file_content: pill('google_drive', 'download', 'content') }],
        }),
      ],
      { sender: 'billing@vendor.example', attachment: 'ANGjdJ8-invoice-42' },
    );
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const found = job.output(1) as { messages: Array<Record<string, unknown>>; has_more: boolean };
    assert.deepEqual(found.messages, [
      {
        messageId: 'm1',
        threadId: 't1',
        subject: 'Invoice 42',
        sender: 'Billing <billing@vendor.example>',
        cc: null,
        bcc: null,
        timestamp: 'Mon, 6 Jan 2025 10:00:00 +0000',
      },
    ]);
    assert.equal(found.has_more, false);
    const list = google.apiRequests().find((r) => r.path === '/gmail/v1/users/me/messages');
    assert.equal(list?.query.get('q'), 'from:billing@vendor.example has:attachment');
    assert.equal(list?.query.get('maxResults'), '5');
    const message = job.output(2) as { id: string; payload: { parts: Array<{ filename: string; body: unknown }> } };
    assert.equal(message.id, 'm1');
    assert.deepEqual(message.payload.parts[1], {
      partId: '1',
      mimeType: 'text/plain',
      filename: 'invoice-42.txt',
      headers: [],
      body: { attachmentId: 'ANGjdJ8-invoice-42', size: 23 },
    });
    assert.deepEqual(job.output(3), { content_bytes: 'Invoice 42: 100.00 EUR\n', size: 23 });
    const uploaded = job.output(4) as { id: string; name: string; parents: string[]; mimeType: string };
    assert.equal(uploaded.name, 'invoice-42.txt');
    assert.deepEqual(uploaded.parents, ['folder-invoices']);
    assert.equal(uploaded.mimeType, 'text/plain');
    const upload = google.apiRequests().find((r) => r.path === '/upload/drive/v3/files');
    assert.equal(upload?.query.get('uploadType'), 'multipart');
    assert.match(String(upload?.headers['content-type']), /^multipart\/related; boundary=/);
    const stored = googleData(google).files.find((f) => f.id === uploaded.id);
    assert.equal(stored?.content.toString('utf8'), 'Invoice 42: 100.00 EUR\n');
    assert.deepEqual(
      (job.output(5) as { files: Array<{ id: string }> }).files.map((f) => f.id),
      [uploaded.id],
    );
    const search = google.apiRequests().find((r) => r.path === '/drive/v3/files');
    assert.equal(
      search?.query.get('q'),
      "trashed = false and name contains 'invoice-42' and 'folder-invoices' in parents",
    );
    assert.deepEqual(job.output(6), { content: 'Invoice 42: 100.00 EUR\n', size: 23 });
    assert.deepEqual(job.output(7), { id: 'sent-1', thread_id: 'thread-sent-1', label_ids: ['SENT'] });
    const sent = parseMime(googleData(google).sent[0] ?? '');
    assert.equal(sent.headers.To, 'Ops Team <ops@acme.example>, finance@acme.example');
    assert.equal(sent.headers.Cc, 'audit@acme.example');
    assert.equal(sent.headers.Subject, `=?UTF-8?B?${Buffer.from('Filed: Invoice 42 — reçu').toString('base64')}?=`);
    assert.deepEqual(sent.parts, ['<p>Invoice 42: 100.00 EUR\n</p>', 'Invoice 42: 100.00 EUR\n']);
  });

  test('a chart of Utilities attached to a Gmail mail and an Outlook mail arrives as its PNG (content_encoding base64)', async () => {
    const chart = action('utility', 'column_chart', 'chart', { list: hook('rows'), chart_title: 'Orders' });
    const file = {
      file_name: pill('utility', 'chart', 'file_name'),
      file_content: pill('utility', 'chart', 'file_content'),
      content_encoding: pill('utility', 'chart', 'content_encoding'),
    };
    const job = await run(
      [
        chart,
        action('gmail', 'send_mail', 'g', { to: 'ops@acme.example', subject: 'Chart', attachments: [file] }),
        action('outlook', 'send_mail', 'o', { to: 'ops@acme.example', subject: 'Chart', attachments: [file] }),
      ],
      {
        rows: [
          { x: 'Mon', y: 3 },
          { x: 'Tue', y: 5 },
        ],
      },
    );
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const png = Buffer.from((job.output(1) as { file_content: string }).file_content, 'base64');
    assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
    const gmail = parseMime(googleData(google).sent.at(-1) ?? '');
    assert.ok(gmail.bytes[1]?.equals(png), 'the Gmail attachment holds the PNG bytes');
    const outlook = outlookOf(microsoft).sent.at(-1) as { attachments: Array<{ name: string; contentBytes: string }> };
    assert.deepEqual(outlook.attachments[0], {
      '@odata.type': '#microsoft.graph.fileAttachment',
      name: 'column_chart.png',
      contentBytes: png.toString('base64'),
    });
    // The other tests read the stand-ins' sent mail from the first: what this one sent goes.
    googleData(google).sent.splice(-1);
    outlookOf(microsoft).sent.splice(-1);
    const bad = await run([
      action('outlook', 'send_mail', 's', {
        to: 'x@y.example',
        subject: 's',
        attachments: [{ file_name: 'a.png', file_content: '%%', content_encoding: 'base64' }],
      }),
    ]);
    assert.equal(bad.status, 'failed');
    assert.match(bad.error ?? '', /attachments\[0\] file content is not base64/);
  });

  test('Google Sheets: add a row under the headers, search rows by a column, update the row found', async () => {
    googleData(google).sheets.set(
      SHEET,
      new Map([
        [
          "Q1 'leads'",
          [
            ['Name', 'Email', 'Status'],
            ['Ana', 'ana@example.com', 'New'],
            ['Bo', 'bo@example.com', 'Done'],
          ],
        ],
      ]),
    );
    const sheet = { spreadsheet_id: SHEET, sheet: "Q1 'leads'" };
    const job = await run(
      [
        action('google_sheets', 'add_spreadsheet_row_v4', 'add', {
          ...sheet,
          data: { Email: hook('email'), Name: 'Cy', Status: 'New' },
        }),
        action('google_sheets', 'search_spreadsheet_rows_v4_new', 'search', { ...sheet, data: { Status: 'New' } }),
        action('google_sheets', 'update_row_v4_new', 'update', {
          ...sheet,
          row_number: pill('google_sheets', 'search', 'rows', CURRENT, 'row_number'),
          data: { Status: 'Contacted' },
        }),
      ],
      { email: 'cy@example.com' },
    );
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(job.output(1), { row_number: 4, data: { Name: 'Cy', Email: 'cy@example.com', Status: 'New' } });
    assert.deepEqual((job.output(2) as { rows: unknown[] }).rows, [
      { row_number: 2, col_Name: 'Ana', col_Email: 'ana@example.com', col_Status: 'New' },
      { row_number: 4, col_Name: 'Cy', col_Email: 'cy@example.com', col_Status: 'New' },
    ]);
    assert.deepEqual(job.output(3), {
      row_number: 2,
      data: { Name: 'Ana', Email: 'ana@example.com', Status: 'Contacted' },
    });
    assert.deepEqual(googleData(google).sheets.get(SHEET)?.get("Q1 'leads'"), [
      ['Name', 'Email', 'Status'],
      ['Ana', 'ana@example.com', 'Contacted'],
      ['Bo', 'bo@example.com', 'Done'],
      ['Cy', 'cy@example.com', 'New'],
    ]);
    const writes = google
      .apiRequests()
      .filter((r) => r.method !== 'GET' && r.path.startsWith(`/v4/spreadsheets/${SHEET}`));
    assert.deepEqual(
      writes.map((r) => [r.method, decodeURIComponent(r.path.split('/').pop() ?? ''), r.query.get('valueInputOption')]),
      [
        ['POST', "'Q1 ''leads'''!A1:append", 'USER_ENTERED'],
        ['PUT', "'Q1 ''leads'''!A2:C2", 'USER_ENTERED'],
      ],
    );
  });

  test('SendGrid: add a contact to a list, send an e-mail, send one from a dynamic template', async () => {
    const job = await run(
      [
        action('sendgrid', 'add_contact', 'contact', {
          email: hook('email'),
          first_name: 'Ana',
          city: 'Lisbon',
          list_ids: 'list-1, list-2',
          custom_fields: { e1_T: 'gold' },
        }),
        action('sendgrid', 'send_email', 'mail', {
          to: hook('email'),
          from: 'hello@acme.example',
          from_name: 'Acme',
          reply_to: 'support@acme.example',
          subject: 'Welcome',
          content: '<b>Hi</b>',
          content_type: 'html',
        }),
        action('sendgrid', 'send_email', 'templated', {
          to: hook('email'),
          from: 'hello@acme.example',
          template_id: 'd-0123456789abcdef',
          dynamic_template_data: { first_name: 'Ana' },
        }),
      ],
      { email: 'ana@example.com' },
    );
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(job.output(1), { job_id: 'job-1' });
    assert.deepEqual(sendgridOf(sendgrid).contacts, [
      {
        list_ids: ['list-1', 'list-2'],
        contact: { email: 'ana@example.com', first_name: 'Ana', city: 'Lisbon', custom_fields: { e1_T: 'gold' } },
      },
    ]);
    assert.deepEqual(job.output(2), { message_id: 'msg-202' });
    const [plain, templated] = sendgridOf(sendgrid).mail;
    assert.deepEqual(plain, {
      personalizations: [{ to: [{ email: 'ana@example.com' }] }],
      from: { email: 'hello@acme.example', name: 'Acme' },
      subject: 'Welcome',
      reply_to: { email: 'support@acme.example' },
      content: [{ type: 'text/html', value: '<b>Hi</b>' }],
    });
    assert.deepEqual(templated, {
      personalizations: [{ to: [{ email: 'ana@example.com' }], dynamic_template_data: { first_name: 'Ana' } }],
      from: { email: 'hello@acme.example' },
      template_id: 'd-0123456789abcdef',
    });
    for (const r of sendgrid.apiRequests()) assert.equal(r.headers.authorization, `Bearer ${API_KEY}`);
  });

  test('Outlook: download the attachments of a message (two pages), send a mail with one of them', async () => {
    const job = await run([
      action('outlook', 'get_attachments', 'files', { message_id: 'AAMkAGI2-msg1=' }),
      action('outlook', 'send_mail', 'send', {
        to: 'orders@acme.example',
        bcc: 'archive@acme.example',
        subject: `Order ${pill('outlook', 'files', 'attachments', CURRENT, 'name')}`,
        message: pill('outlook', 'files', 'attachments', CURRENT, 'content'),
        attachments: [
          {
            file_name: pill('outlook', 'files', 'attachments', CURRENT, 'name'),
            file_content: pill('outlook', 'files', 'attachments', CURRENT, 'content'),
          },
        ],
      }),
    ]);
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(job.output(1), {
      attachments: [
        {
          id: 'att-1',
          name: 'order.csv',
          content_type: 'text/csv',
          size: 14,
          is_inline: false,
          content: 'sku,qty\nA-1,2\n',
        },
        {
          id: 'att-2',
          name: 'notes.txt',
          content_type: 'text/plain',
          size: 19,
          is_inline: false,
          content: 'Deliver before noon',
        },
      ],
    });
    assert.deepEqual(
      microsoft
        .apiRequests()
        .filter((r) => r.path.endsWith('/attachments'))
        .map((r) => r.query.get('$skip')),
      [null, '1'],
    );
    assert.deepEqual(outlookOf(microsoft).sent, [
      {
        subject: 'Order order.csv',
        body: { contentType: 'Text', content: 'sku,qty\nA-1,2\n' },
        toRecipients: [{ emailAddress: { address: 'orders@acme.example' } }],
        bccRecipients: [{ emailAddress: { address: 'archive@acme.example' } }],
        attachments: [
          {
            '@odata.type': '#microsoft.graph.fileAttachment',
            name: 'order.csv',
            contentBytes: Buffer.from('sku,qty\nA-1,2\n').toString('base64'),
          },
        ],
      },
    ]);
  });

  test('Drive search reads the pages a folder needs, up to count; Gmail search gives its next page token', async () => {
    const files = googleData(google).files;
    for (let i = 0; i < 105; i++)
      files.push({
        id: `scan-${i}`,
        name: `scan-${String(i).padStart(3, '0')}.pdf`,
        mimeType: 'application/pdf',
        parents: ['folder-scans'],
        content: Buffer.from('x'),
        createdTime: '2025-01-03T00:00:00.000Z',
      });
    googleData(google).messages.push({
      id: 'm2',
      threadId: 't2',
      from: 'shop@store.example',
      to: 'ana@example.com',
      subject: 'Invoice 43',
      date: 'Tue, 7 Jan 2025 10:00:00 +0000',
      text: 'Thanks',
      attachments: [],
    });
    const job = await run([
      action('google_drive', 'search_file_or_folder', 'all', { folder_id: 'folder-scans', count: '1000' }),
      action('google_drive', 'search_file_or_folder', 'some', { folder_id: 'folder-scans', count: '3' }),
      action('gmail', 'search_messages', 'mail', { limit: '1', raw_query: 'subject:invoice' }),
    ]);
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const all = (job.output(1) as { files: Array<{ id: string }> }).files;
    assert.equal(all.length, 105);
    assert.equal(all[104]?.id, 'scan-104');
    assert.equal((job.output(2) as { files: unknown[] }).files.length, 3);
    const pages = google
      .apiRequests()
      .filter((r) => r.path === '/drive/v3/files' && r.query.get('q')?.includes('folder-scans'));
    assert.deepEqual(
      pages.map((r) => [r.query.get('pageSize'), r.query.get('pageToken')]),
      [
        ['100', null],
        ['100', '100'],
        ['3', null],
      ],
    );
    const mail = job.output(3) as { messages: unknown[]; nextPageToken: string | null; has_more: boolean };
    assert.equal(mail.messages.length, 1);
    assert.equal(mail.has_more, true);
    assert.equal(mail.nextPageToken, '1');
  });

  test('a blank required field or an unknown action is refused when the recipe starts', async () => {
    const cases: Array<[StepDoc, unknown]> = [
      [action('gmail', 'send_mail', 's', { to: 'a@b.example' }), [['Subject', null, "can't be blank", 'subject']]],
      [action('sendgrid', 'add_contact', 'c', { first_name: 'Ana' }), [['Email', null, "can't be blank", 'email']]],
      [
        action('google_sheets', 'update_row_v4_new', 'u', { spreadsheet_id: SHEET, sheet: 'S' }),
        [['Row number', null, "can't be blank", 'row_number']],
      ],
      [action('outlook', 'get_attachments', 'g', {}), [['Message ID', null, "can't be blank", 'message_id']]],
      [
        action('google_drive', 'upload_to_dropbox', 'x', {}),
        [['name', 'upload_to_dropbox', 'is invalid: google_drive has no action named upload_to_dropbox']],
      ],
    ];
    for (const [step, errors] of cases) {
      const id = await createRecipe(t, webhookTrigger([step]), { config: config(String(step.provider)) });
      const start = await t.call('PUT', `/api/recipes/${id}/start`);
      assert.equal(start.body.success, false, JSON.stringify(step));
      assert.deepEqual(start.body.code_errors, [[1, errors]]);
    }
  });

  test("bad input is refused before any request; the service's refusals are the step's error", async () => {
    const before = [apiCount(google), apiCount(microsoft), apiCount(sendgrid)];
    const refused: Array<[StepDoc, RegExp]> = [
      [
        action('gmail', 'send_mail', 's', { to: 'not an address', subject: 'x' }),
        /To: "not an address" is not an e-mail address/,
      ],
      [
        action('gmail', 'send_mail', 's', { to: 'a@b.example', subject: 'x\r\nBcc: all@b.example' }),
        /Subject must be one line/,
      ],
      [
        action('gmail', 'download_attachment', 'd', { id: '../drafts', attachmentId: 'a' }),
        /Email ID "\.\.\/drafts" is not a Gmail ID/,
      ],
      [
        action('gmail', 'search_messages', 's', { raw_query: 'is:unread', from: 'a@b.example' }),
        /raw_query cannot be combined/,
      ],
      [action('google_drive', 'download_file_contents', 'd', { file_id: 'a/../b' }), /is not a Drive file ID/],
      [
        action('google_sheets', 'update_row_v4_new', 'u', {
          spreadsheet_id: SHEET,
          sheet: 'S',
          row_number: '1',
          data: {},
        }),
        /is not a data row/,
      ],
      [
        action('google_sheets', 'search_spreadsheet_rows_v4_new', 's', { spreadsheet_id: 'x/y', sheet: 'S' }),
        /is not a spreadsheet ID/,
      ],
      [
        action('sendgrid', 'send_email', 's', { to: 'a@b.example', from: 'c@d.example' }),
        /needs a subject and content, or a template_id/,
      ],
      [action('sendgrid', 'add_contact', 'c', { email: 'a@b.example, c@d.example' }), /Email takes one e-mail address/],
      [action('outlook', 'get_attachments', 'g', { message_id: 'a?b' }), /is not an Outlook message ID/],
    ];
    for (const [step, message] of refused) {
      const job = await run([step]);
      assert.equal(job.status, 'failed', JSON.stringify(step));
      assert.equal(job.errorType, 'Bad request');
      assert.match(job.lines[1]?.error ?? '', message);
    }
    assert.deepEqual([apiCount(google), apiCount(microsoft), apiCount(sendgrid)], before, 'nothing reached a service');

    const column = await run([
      action('google_sheets', 'add_spreadsheet_row_v4', 'a', {
        spreadsheet_id: SHEET,
        sheet: "Q1 'leads'",
        data: { Phone: '1' },
      }),
    ]);
    assert.match(
      column.lines[1]?.error ?? '',
      /"Phone" is not a column of the sheet \(its header row: Name, Email, Status\)/,
    );
    const gone = await run([action('google_drive', 'download_file_contents', 'd', { file_id: 'no-such-file' })]);
    assert.equal(gone.lines[1]?.error, '404 Not found: File not found: no-such-file.');
    const noSheet = await run([
      action('google_sheets', 'search_spreadsheet_rows_v4_new', 's', { spreadsheet_id: SHEET, sheet: 'Nope' }),
    ]);
    assert.equal(noSheet.lines[1]?.error, "400 Bad request: Unable to parse range: 'Nope'");
    const badRecipient = await run([
      action('outlook', 'send_mail', 's', { to: 'x@y.example', subject: 's', attachments: [{ file_name: '' }] }),
    ]);
    assert.match(badRecipient.lines[1]?.error ?? '', /attachments\[0\] file name can't be blank/);
    const notFound = await run([action('outlook', 'get_attachments', 'g', { message_id: 'AAMk-unknown' })]);
    assert.equal(notFound.lines[1]?.error, '404 Not found: The specified object was not found in the store.');
  });

  test('an expired token is refreshed once; 429 waits for Retry-After; a 5xx, a timeout and a body that is not JSON fail the step', async () => {
    const tokens = () => google.requests.filter((r) => r.path === '/token').length;
    google.expireAccessTokens();
    const before = tokens();
    const refreshed = await run([action('gmail', 'get_message', 'g', { messageId: 'm1' })]);
    assert.equal(refreshed.status, 'succeeded', refreshed.error ?? '');
    assert.equal(tokens(), before + 1);

    const sent = apiCount(sendgrid);
    sendgrid.enqueue({
      status: 429,
      headers: { 'retry-after': '1' },
      json: { errors: [{ message: 'too many requests' }] },
    });
    const limited = await run([action('sendgrid', 'add_contact', 'c', { email: 'rate@example.com' })]);
    assert.equal(limited.status, 'succeeded', limited.error ?? '');
    assert.equal(apiCount(sendgrid) - sent, 2, 'the 429, then the answer');

    microsoft.enqueue({
      status: 503,
      headers: { 'retry-after': '3600' },
      json: { error: { code: 'serviceNotAvailable', message: 'Try later' } },
    });
    const unavailable = await run([action('outlook', 'send_mail', 's', { to: 'a@b.example', subject: 's' })]);
    assert.equal(unavailable.status, 'failed');
    assert.match(unavailable.lines[1]?.error ?? '', /^503 .*Try later$/);

    microsoft.enqueue({
      status: 500,
      json: { error: { code: 'generalException', message: 'An internal server error occurred.' } },
    });
    const broken = await run([action('outlook', 'send_mail', 's', { to: 'a@b.example', subject: 's' })]);
    assert.equal(broken.errorType, 'Server error');
    assert.equal(broken.lines[1]?.error, '500 Server error: An internal server error occurred.');
    assert.deepEqual(outlookOf(microsoft).sent.length, 1, 'only the first test sent a mail');

    sendgrid.enqueue({ delayMs: TIMEOUT_MS * 2, json: {} });
    const slow = await run([
      action('sendgrid', 'send_email', 's', { to: 'a@b.example', from: 'c@d.example', subject: 's', content: 'c' }),
    ]);
    assert.equal(slow.errorType, 'Timeout');
    assert.match(slow.lines[1]?.error ?? '', /^no answer from api\.sendgrid\.com within \d+ ms$/);

    google.enqueue({ headers: { 'content-type': 'text/html' }, text: '<html>Service maintenance</html>' });
    const html = await run([
      action('google_sheets', 'search_spreadsheet_rows_v4_new', 's', { spreadsheet_id: SHEET, sheet: "Q1 'leads'" }),
    ]);
    assert.equal(html.errorType, 'Bad response');
    assert.equal(html.lines[1]?.error, '200 answer is not JSON (text/html): <html>Service maintenance</html>');
  });
});
