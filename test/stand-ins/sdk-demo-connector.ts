// A custom connector in the vendor's Ruby SDK that speaks to test/stand-ins/sdk-demo-api.ts: one of
// each thing the SDK reference documents (authorization types, actions, methods, pick lists, triggers).
/** The demo connector: one of each thing the SDK reference documents, against the stand-in. */
export const DEMO = String.raw`
{
  title: 'Acme',

  connection: {
    fields: [
      { name: 'base', optional: false },
      { name: 'user' },
      { name: 'password', control_type: 'password' }
    ],
    authorization: {
      type: 'basic_auth',
      apply: lambda do |connection|
        user(connection['user'])
        password(connection['password'])
      end
    },
    base_uri: lambda do |connection|
      connection['base']
    end
  },

  test: lambda do |connection|
    get('/basic/me')
  end,

  object_definitions: {
    record: {
      fields: lambda do |connection, config_fields|
        [{ name: 'id', type: 'integer' }, { name: 'name' }]
      end
    },
    record_with_owner: {
      fields: lambda do |connection, config_fields, object_definitions|
        object_definitions['record'] + [{ name: 'owner', type: 'object', properties: [{ name: 'email' }] }]
      end
    }
  },

  methods: {
    format_name: lambda do |name, suffix = '!'|
      "#{name.to_s.strip.labelize}#{suffix}"
    end,
    page_of: lambda do |since|
      get('/records', since: since)
    end
  },

  pick_lists: {
    colors: lambda do
      [%w[Red red], %w[Blue blue]]
    end,
    records: lambda do |connection|
      get('/records', since: 0)['items'].map { |r| [r['name'], r['id']] }
    end,
    cities: lambda do |connection, country:|
      country == 'FR' ? [%w[Paris paris]] : []
    end
  },

  actions: {
    create_record: {
      title: 'Create record',
      config_fields: [{ name: 'kind', control_type: 'select', pick_list: 'colors' }],
      input_fields: lambda do |object_definitions, connection, config_fields|
        object_definitions['record'].ignored('id').required('name')
      end,
      output_fields: lambda do |object_definitions|
        object_definitions['record_with_owner']
      end,
      execute: lambda do |connection, input, input_schema, output_schema|
        post('/records', name: call(:format_name, input['name'])).
          after_response do |code, body, headers|
            body.merge('status' => code, 'had_content_type' => headers['content_type'])
          end
      end
    },

    search_records: {
      execute: lambda do |connection, input|
        page = get('/records').params(since: input[:since] || 0)
        { records: page['items'], count: page['items'].size, more: page['more'] }
      end
    },

    update_record: {
      execute: lambda do |connection, input|
        put("/records/#{input['id']}", name: input['name'])
      end
    },

    helpers: {
      execute: lambda do |connection, input|
        t = Time.utc(2024, 1, 31, 10, 30)
        {
          present: ''.present?, blank: '  '.blank?, presence: ''.presence, try: nil.try(:upcase),
          label: 'first_name'.labelize, param: { b: [1, 2], a: 'x y' }.to_param,
          b64: 'hello'.encode_base64, unb64: 'aGVsbG8='.decode_base64, url: 'a b&c'.encode_url,
          sha: 'abc'.encode_sha256.encode_hex, md5: 'abc'.md5_hexdigest,
          hmac: 'data'.hmac_sha256('key').encode_hex,
          month_later: (t + 1.month).iso8601, days_ago: 2.days.ago(t).to_date.to_s,
          beginning: t.beginning_of_month.iso8601, end_of_day: t.end_of_day.strftime('%H:%M:%S'),
          date_plus: (Date.new(2024, 1, 31) + 1.month).to_s, parsed: '2024-02-03T04:05:06Z'.to_time.to_i,
          pluck: [{ 'id' => 1, 'n' => 'a' }, { 'id' => 2, 'n' => 'b' }].pluck('id'),
          smart_join: ['a', nil, ' ', 'b'].smart_join('-'), ordinal: 22.ordinalize, currency: 1234.5.to_currency,
          is_true: 'yes'.is_true?, deep: { a: { b: 1 } }.deep_merge(a: { c: 2 }),
          indifferent: input[:name], except: { 'a' => 1, 'b' => 2 }.except('a'),
          uuid: workato.uuid.size, parsed_json: workato.parse_json('{"a":[1]}')['a'],
          property: account_property('region'), country: lookup('countries', code: 'FR')['name'],
          pluralize: 'company'.pluralize, titled: 'hello_world'.titleize, strip_tags: '<b>bold</b>'.strip_tags,
          csv: workato.csv.parse("a,b\n1,\"x,y\"\n"), yaml: workato.parse_yaml("a: 1\nb: [x]")['b'],
          yaml_out: workato.render_yaml('k' => 'v'), zone: t.in_time_zone('America/New_York').utc_offset,
          now_class: now.class.name
        }
      end
    },

    formats: {
      execute: lambda do |connection, input|
        form = post('/form', a: 1, b: 'two words').request_format_www_form_urlencoded
        xml = post('/xml').request_format_xml('order', '@xmlns' => 'urn:acme').payload(id: 7, lines: [{ sku: 'a' }, { sku: 'b' }]).response_format_xml
        upload = post('/upload').request_format_multipart_form.payload(note: 'hi', file: ['file body', 'text/plain', 'a.txt'])
        raw = get('/status/202').response_format_raw
        { form: form, xml_kind: xml['echo'][0]['@kind'], xml_items: xml['echo'][0]['item'].map { |i| i['content!'] },
          xml_sent: xml['echo'][0]['received'][0]['content!'], upload: upload['parts'], raw: raw }
      end
    },

    errors: {
      execute: lambda do |connection, input|
        handled = get('/status/404').after_error_response(404) do |code, body, headers, message|
          { handled: code, body: parse_json(body), message: message }
        end
        redirect_kept = get('/redirect').ignore_redirection.after_response { |code, body, headers| { code: code, location: headers['location'] } }
        followed = get('/redirect')
        unhandled = begin
          get('/status/500').response!
          'no error'
        rescue => e
          e.message
        end
        { handled: handled, redirect_kept: redirect_kept, followed: followed['items'].size, unhandled: unhandled }
      end
    },

    fail_on_purpose: {
      execute: lambda do |connection, input|
        value = input['value']
        error("the value #{value} is not accepted")
      end
    },

    raise_plain: {
      execute: lambda do |connection, input|
        nil.upcase
      end
    },

    log: {
      execute: lambda do |connection, input|
        puts "working on #{input['id']}"
        { ok: true }
      end
    },

    jwt: {
      execute: lambda do |connection, input|
        { hs: workato.jwt_encode({ sub: '42' }, 'secret', 'HS256'),
          rs: workato.jwt_encode({ sub: '42' }, input['key'], 'RS256', kid: 'k1'),
          decoded: workato.jwt_decode(workato.jwt_encode({ sub: '7' }, 'secret', 'HS256'), 'secret', 'HS256')['payload'],
          aes: workato.aes_cbc_decrypt(workato.aes_cbc_encrypt('plain text', 'k' * 32, 'i' * 16), 'k' * 32, 'i' * 16),
          rsa_sig: 'payload'.rsa_sha256(input['key']).encode_base64 }
      end
    },

    digest: {
      execute: lambda do |connection, input|
        get('/digest').user('ada').password('lovelace').digest_auth
      end
    }
  },

  triggers: {
    new_records: {
      title: 'New record',
      input_fields: lambda { [{ name: 'since', type: 'integer' }] },
      poll: lambda do |connection, input, closure|
        since = closure || input['since'] || 0
        page = call(:page_of, since)
        items = page['items']
        { events: items, next_poll: items.last ? items.last['id'] : since, can_poll_more: page['more'] }
      end,
      dedup: lambda do |record|
        "#{record['id']}@#{record['name']}"
      end,
      output_fields: lambda { |object_definitions| object_definitions['record'] }
    },

    record_hook: {
      title: 'Record changed (webhook)',
      webhook_subscribe: lambda do |webhook_url, connection, input, recipe_id|
        post('/hooks', url: webhook_url)
      end,
      webhook_unsubscribe: lambda do |webhook|
        delete("/hooks/#{webhook['id']}")
      end,
      webhook_notification: lambda do |input, payload, extended_input_schema, extended_output_schema, headers, params|
        payload['records'].map { |r| r.merge('via' => headers['x_source'], 'filter' => params['filter']) }
      end,
      dedup: lambda { |record| record['id'].to_s }
    }
  }
}
`;
