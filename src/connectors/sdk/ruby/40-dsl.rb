# What a connector's lambdas run in: the SDK's methods (`get`, `post`..., `call`, `error`,
# `account_property`, `lookup`, `workato.*`, `now`, `parse_json`...) on an object made for the
# call, with the connection's values and authorization at hand.
module Switchboard
  module SDK
    # A lambda takes the arguments it declares (a connector may declare fewer than the SDK passes).
    def self.arguments_for(block, args)
      count = positional_count(block)
      count ? args.take(count) : args
    end

    POSITIONAL_KEPT = 512

    # How many positional arguments a lambda takes (nil: any number), kept per lambda: a connector's
    # lambdas are made once per interpreter state and called at every request.
    def self.positional_count(block)
      counts = (@positional_counts ||= {}.compare_by_identity)
      return counts[block] if counts.key?(block)

      counts.clear if counts.size >= POSITIONAL_KEPT
      params = block.parameters
      counts[block] = params.any? { |kind, _| kind == :rest } ? nil : params.count { |kind, _| %i[req opt].include?(kind) }
    end

    class ReinvokeAfter < ::StandardError
      attr_reader :seconds, :continue

      def initialize(seconds, continue)
        super('reinvoke_after')
        @seconds = seconds
        @continue = continue
      end
    end

    # `connection` in the SDK: the values of a connection and its definition.
    class Connection
      attr_reader :settings, :source, :methods_source

      def initialize(source, settings, methods_source, updates)
        # The connector's own definition is indifferent already: not copied for every call.
        @source = source.is_a?(HashWithIndifferentAccess) ? source : Convert.indifferent(source || {})
        # The call's settings are indifferent already (Convert.indifferent of its parameters).
        @settings = settings.is_a?(HashWithIndifferentAccess) ? settings : Convert.indifferent(settings || {})
        @methods_source = methods_source
        @updates = updates
      end

      # Kept for the call (asked for at every request); `multi` selects by the settings, so new
      # settings select again.
      def authorization
        return @authorization if defined?(@authorization)

        definition = @source['authorization']
        @authorization = definition.blank? ? nil : Authorization.new(self, definition)
      end

      def base_uri
        lambda = @source['base_uri']
        return nil unless lambda.is_a?(::Proc)

        Context.new(self, skip_apply: true).__exec(lambda, settings)
      end

      # New values from `acquire` or `refresh`: merged in, and told to the host at once.
      def update!(values)
        return false unless values.is_a?(::Hash) && values.any?

        @settings = @settings.merge(values)
        remove_instance_variable(:@authorization) if defined?(@authorization)
        @updates[:settings] = @settings
        Host.request('connection_update', 'settings' => Convert.plain(@settings))
        true
      end

      # The values another call's refresh stored (the host re-read them): taken, not told back.
      def adopt!(values)
        return false unless values.is_a?(::Hash) && values.any?

        @settings = @settings.merge(Convert.indifferent(values))
        remove_instance_variable(:@authorization) if defined?(@authorization)
        @updates[:settings] = @settings
        true
      end
    end

    class Authorization
      attr_reader :source

      def initialize(connection, definition)
        @connection = connection
        @source = multi?(definition) ? selected(definition) : definition
      end

      def type = @type ||= (@source['type'].presence || 'none').to_s
      def oauth2? = @oauth2.nil? ? (@oauth2 = type.match?(/oauth2/i)) : @oauth2
      def refresh_on = ::Array.wrap(@source['refresh_on']).compact
      def detect_on = @detect_on ||= ::Array.wrap(@source['detect_on']).compact
      def reauthorizable? = oauth2? || @source['acquire'].present?

      def refresh?(code, body, message)
        return false unless reauthorizable?

        # Without `refresh_on`, a 401 asks for new credentials (the vendor's default).
        return code == 401 if refresh_on.empty?

        refresh_on.any? do |pattern|
          (pattern.is_a?(::Integer) && pattern == code) || pattern === message.to_s || pattern === body
        end
      end

      def value_of(key)
        value = @source[key]
        value.is_a?(::Proc) ? Context.new(@connection, skip_apply: true).__exec(value, @connection.settings) : value
      end

      # `verifier`: the PKCE verifier the code was asked with (given to `acquire` after the redirect URI).
      def acquire(auth_code = nil, redirect_url = nil, verifier = nil)
        lambda = @source['acquire']
        return oauth2_token_exchange(auth_code, redirect_url, verifier) if lambda.nil? && oauth2?
        raise InvalidDefinitionError, "Expect 'acquire' block" unless lambda

        Context.new(@connection, skip_apply: true).__resolve(
          Context.new(@connection, skip_apply: true).__exec(lambda, @connection.settings, auth_code, redirect_url, verifier)
        )
      end

      # `pkce: lambda do |verifier, challenge|`: the verifier, challenge and method the connector sends.
      # nil when this authorization has none (a `multi`'s selected option without one, while another has one).
      def pkce(verifier, challenge)
        lambda = @source['pkce']
        return nil if lambda.nil?
        raise InvalidDefinitionError, "the authorization has no 'pkce' lambda" unless lambda.is_a?(::Proc)

        context = Context.new(@connection, skip_apply: true)
        answer = context.__resolve(context.__exec(lambda, verifier, challenge))
        raise InvalidDefinitionError, "'pkce' must answer a Hash with verifier, challenge and challenge_method" unless answer.is_a?(::Hash)

        Convert.indifferent(answer).slice('verifier', 'challenge', 'challenge_method').transform_values(&:to_s)
      end

      def refresh(refresh_token = nil)
        lambda = @source['refresh']
        raise InvalidDefinitionError, "Expect 'refresh' block" unless lambda

        context = Context.new(@connection, skip_apply: true)
        context.__resolve(context.__exec(lambda, @connection.settings, refresh_token || @connection.settings['refresh_token']))
      end

      # After a failed request that `refresh_on` matches: new values, kept; false when none came.
      # The host is asked first: one call at a time refreshes a connection (across jobs and nodes);
      # the others wait for it and take the values it stored. A refresh the service refused (a 4xx
      # answer) is told to the host, which marks the connection lost.
      def refresh!
        turn = Host.request('refresh_begin')
        raise SDK::RefreshFailedError, turn['failed'].to_s if turn['failed']
        return @connection.adopt!(turn['settings']) if turn['settings'].is_a?(::Hash)

        failure = nil
        begin
          @connection.update!(new_credentials)
        rescue SDK::RefreshFailedError, SDK::InvalidDefinitionError => e
          failure = [e.message, false]
          raise
        rescue SDK::Error, ::StandardError => e
          failure = ["could not get new credentials: #{e.message}", refused?(e)]
          raise SDK::RefreshFailedError, failure[0]
        ensure
          Host.request('refresh_end', 'ok' => failure.nil?, 'refused' => failure ? failure[1] : false,
                                      'message' => failure&.first)
        end
      end

      # The service answered the refresh with a client error (a revoked or spent grant), not a
      # timeout or its own failure.
      def refused?(error)
        return false unless error.is_a?(SDK::RequestFailedError)

        code = error.code.to_i
        code >= 400 && code < 500 && code != 408 && code != 429
      end

      def new_credentials
        if oauth2?
          if @source['refresh'] then tokens_of(refresh)
          elsif @source['token_url'] then oauth2_refresh_with_token_url
          else raise InvalidDefinitionError, "'refresh' block or 'token_url' is required for refreshing the token"
          end
        else
          tokens_of(acquire)
        end
      end

      # `acquire` and `refresh` may return the tokens, or [tokens, other values], or [tokens, owner id, values].
      def tokens_of(result)
        return Convert.indifferent(result) unless result.is_a?(::Array)

        tokens = Convert.indifferent(result[0] || {})
        extra = result.find.with_index { |v, i| i.positive? && v.is_a?(::Hash) }
        extra ? tokens.merge(extra) : tokens
      end

      def client_credentials
        override = @connection.settings['__oauth_client']
        return [override['client_id'], override['client_secret']] if override.is_a?(::Hash)

        [value_of('client_id') || @connection.settings['client_id'], value_of('client_secret') || @connection.settings['client_secret']]
      end

      def oauth2_token_exchange(code, redirect_url, verifier = nil)
        client_id, client_secret = client_credentials
        form = { grant_type: 'authorization_code', code: code, redirect_uri: redirect_url,
                 client_id: client_id, client_secret: client_secret }
        form[:code_verifier] = verifier if verifier
        Context.new(@connection, skip_apply: true).post(value_of('token_url'))
               .payload(form)
               .request_format_www_form_urlencoded.response!.to_hash
               .slice('access_token', 'refresh_token', 'expires_in', 'token_type', 'scope', 'id_token', 'instance_url')
      end

      def oauth2_refresh_with_token_url
        refresh_token = @connection.settings['refresh_token']
        raise SDK::Error, 'the connection has no refresh token: connect it again' if refresh_token.blank?

        client_id, client_secret = client_credentials
        tokens = Context.new(@connection, skip_apply: true).post(value_of('token_url'))
                        .payload(grant_type: 'refresh_token', refresh_token: refresh_token,
                                 client_id: client_id, client_secret: client_secret)
                        .request_format_www_form_urlencoded.response!
        { 'access_token' => tokens['access_token'], 'refresh_token' => tokens['refresh_token'].presence || refresh_token }
      end

      private

      def multi?(definition) = definition['type'].to_s == 'multi'

      def selected(definition)
        chooser = definition['selected']
        raise InvalidDefinitionError, "Multi-auth connection must define 'selected' block" unless chooser
        raise InvalidDefinitionError, "Multi-auth connection must define 'options' list" if definition['options'].blank?

        key = Context.new(@connection, skip_apply: true).__exec(chooser, @connection.settings)
        option = definition['options'][key.to_s]
        raise InvalidDefinitionError, "the connection's authorization type #{key.inspect} is not one of the options" unless option

        Convert.indifferent(option)
      end
    end

    # The `workato` helpers.
    class WorkatoPackage
      JWT_ALGORITHMS = %w[RS256 RS384 RS512 HS256 HS384 HS512 ES256 ES384 ES512].freeze

      def parse_json(source) = Convert.indifferent(JSON.parse(source.to_s))
      def render_json(value) = JSON.generate(Convert.plain(value))
      def uuid = SecureRandom.uuid
      def random_bytes(length) = SecureRandom.random_bytes([length.to_i, 32_768].min)
      def parse_yaml(text) = Convert.indifferent(YAML.safe_load(text.to_s, permitted_classes: [::Date, ::Time], aliases: false))
      def render_yaml(value) = YAML.dump(Convert.plain(value))

      def jwt_encode_rs256(payload, key, header_fields = {}) = jwt_encode(payload, key, 'RS256', header_fields)

      def jwt_encode(payload, key, algorithm, header_fields = {})
        algorithm = algorithm.to_s.upcase
        raise SDK::ArgumentError, "Unsupported signing method. Supports only #{JWT_ALGORITHMS.join(', ')}. Got: '#{algorithm}'" unless JWT_ALGORITHMS.include?(algorithm)

        header = Convert.plain(header_fields || {}).except('typ', 'alg').merge('typ' => 'JWT', 'alg' => algorithm)
        signing_input = [header, Convert.plain(payload)].map { |part| Base64.urlsafe_encode64(JSON.generate(part), padding: false) }.join('.')
        "#{signing_input}.#{Base64.urlsafe_encode64(jwt_signature(algorithm, key, signing_input), padding: false)}"
      end

      def jwt_decode(jwt, key, algorithm)
        algorithm = algorithm.to_s.upcase
        raise SDK::ArgumentError, "Unsupported verification algorithm. Supports only #{JWT_ALGORITHMS.join(', ')}. Got: '#{algorithm}'" unless JWT_ALGORITHMS.include?(algorithm)

        header64, payload64, signature64 = jwt.to_s.split('.')
        raise SDK::ArgumentError, 'Not enough or too many segments' unless header64 && payload64 && signature64

        header = JSON.parse(Base64.urlsafe_decode64(header64))
        raise SDK::ArgumentError, 'Mismatched algorithm and key' unless header['alg'] == algorithm

        signature = Base64.urlsafe_decode64(signature64)
        input = "#{header64}.#{payload64}"
        valid = if algorithm.start_with?('HS')
                  Crypto.hmac("sha#{algorithm[2..]}", key, input) == signature
                else
                  Crypto.verify("sha#{algorithm[2..]}", key, input, signature)
                end
        raise SDK::ArgumentError, 'Signature verification failed' unless valid

        { 'payload' => JSON.parse(Base64.urlsafe_decode64(payload64)), 'header' => header }
      end

      def verify_rsa(payload, certificate, signature, algorithm = 'SHA256')
        Crypto.verify(algorithm.to_s.downcase, certificate, payload, signature)
      end

      def aes_cbc_encrypt(string, key, init_vector = nil)
        iv = init_vector || SecureRandom.random_bytes(16)
        out = cipher('cipher', 'cbc', string, key, iv)
        init_vector ? out : iv + out
      end

      def aes_cbc_decrypt(string, key, init_vector = nil)
        data = string
        iv = init_vector
        unless iv
          iv = data.byteslice(0, 16)
          data = data.byteslice(16..)
        end
        cipher('decipher', 'cbc', data, key, iv)
      end

      def aes_gcm_encrypt(string, key, init_vector, auth_data = '')
        out = cipher('cipher', 'gcm', string, key, init_vector, 'aad' => Crypto.b64(auth_data))
        { 'encrypted' => out.byteslice(0, out.bytesize - 16), 'tag' => out.byteslice(-16, 16) }
      end

      def aes_gcm_decrypt(encrypted, key, auth_tag, init_vector, auth_data = '')
        cipher('decipher', 'gcm', encrypted, key, init_vector, 'aad' => Crypto.b64(auth_data), 'tag' => Crypto.b64(auth_tag))
      end

      def pbkdf2_hmac_sha1(string, salt, iterations = 1000, key_len = 16)
        Crypto.unb64(Host.crypto('pbkdf2', 'password' => Crypto.b64(string), 'salt' => Crypto.b64(salt),
                                           'iterations' => iterations, 'length' => key_len, 'digest' => 'sha1')['value'])
      end

      def csv = CsvPackage.new

      def method_missing(name, *_args) = raise(SDK::Error, "workato.#{name} is not available on this server")
      def respond_to_missing?(*) = false

      private

      def jwt_signature(algorithm, key, input)
        digest = "sha#{algorithm[2..]}"
        algorithm.start_with?('HS') ? Crypto.hmac(digest, key.to_s, input) : Crypto.sign(digest, key.to_s, input)
      end

      def cipher(kind, mode, data, key, iv, extra = {})
        Crypto.unb64(Host.crypto(kind, { 'mode' => mode, 'data' => Crypto.b64(data), 'key' => Crypto.b64(key), 'iv' => Crypto.b64(iv) }.merge(extra))['value'])
      end
    end

    # `workato.csv`: parse and generate, over Ruby's own CSV-free splitting (quotes and escaped quotes).
    class CsvPackage
      def parse(text, headers: true, col_sep: ',', skip_blanks: false, **)
        rows = split_rows(text.to_s, col_sep)
        rows.reject! { |r| r.all? { |c| c.to_s.empty? } } if skip_blanks
        return rows unless headers

        names = headers.is_a?(::Array) ? headers.map(&:to_s) : rows.shift || []
        rows.map { |r| names.each_with_index.to_h { |n, i| [n, r[i]] } }
      end

      def generate(str = nil, headers: nil, col_sep: ',', **)
        out = +(str || '')
        builder = CsvBuilder.new(out, col_sep)
        builder << headers if headers
        yield builder if block_given?
        out
      end

      class CsvBuilder
        def initialize(out, sep)
          @out = out
          @sep = sep
        end

        def <<(row)
          @out << row.map { |c| c.to_s.match?(/[#{Regexp.escape(@sep)}"\r\n]/) ? %("#{c.to_s.gsub('"', '""')}") : c.to_s }.join(@sep) << "\n"
          self
        end
      end

      private

      def split_rows(text, sep)
        scanner = StringScanner.new(text)
        rows = []
        row = []
        until scanner.eos?
          if scanner.scan(/"((?:[^"]|"")*)"/)
            row << scanner[1].gsub('""', '"')
          else
            row << scanner.scan(/[^#{Regexp.escape(sep)}\r\n]*/)
          end
          if scanner.scan(/#{Regexp.escape(sep)}/) then next
          elsif scanner.scan(/\r?\n/) || scanner.eos?
            rows << row
            row = []
          else
            raise SDK::Error, "the CSV is malformed near #{scanner.rest[0, 20].inspect}"
          end
        end
        rows
      end
    end

    # The object each lambda runs on.
    class Context
      MAX_CALL_DEPTH = 40

      def initialize(connection, skip_apply: false, methods: nil, updates: nil, execution: {})
        @connection = connection
        @skip_apply = skip_apply
        @methods = methods || connection.methods_source
        @execution = execution
      end

      def get(url, params = {}) = Request.new(url, 'GET', self).params(params).response_format_json
      def options(url, params = {}) = Request.new(url, 'OPTIONS', self).params(params).response_format_json
      def head(url, params = {}) = Request.new(url, 'HEAD', self).params(params).response_format_json
      def post(url, payload = nil) = Request.new(url, 'POST', self).payload(payload).format_json
      def put(url, payload = nil) = Request.new(url, 'PUT', self).payload(payload).format_json
      def patch(url, payload = nil) = Request.new(url, 'PATCH', self).payload(payload).format_json
      def delete(url, payload = nil) = Request.new(url, 'DELETE', self).payload(payload).format_json
      def copy(url, payload = nil) = Request.new(url, 'COPY', self).payload(payload).format_json
      def move(url, payload = nil) = Request.new(url, 'MOVE', self).payload(payload).format_json

      def parallel(requests = [], **)
        requests.each_with_object([true, [], []]) do |request, result|
          response = nil
          failure = nil
          begin
            response = request.response!
          rescue ::StandardError => e
            failure = e.to_s
          end
          result[0] &&= failure.nil?
          result[1] << response
          result[2] << failure
        end
      end

      def call(name, *args)
        lambda = @methods && @methods[name.to_s]
        raise SDK::Error, "the connector has no method named #{name}" unless lambda
        raise SDK::InvalidDefinitionError, "the method #{name} is not a lambda" unless lambda.is_a?(::Proc)

        # An exception raised through many levels of `call` outgrows the buffer the WebAssembly
        # interpreter unwinds its C stack into (about 80 levels stop it): a bound well before.
        @call_depth = (@call_depth || 0) + 1
        raise ::SystemStackError, "stack level too deep: methods called #{MAX_CALL_DEPTH} levels deep (call(:#{name}))" if @call_depth > MAX_CALL_DEPTH

        begin
          instance_exec(*SDK.arguments_for(lambda, args), &lambda)
        ensure
          @call_depth -= 1
        end
      end

      def error(message) = raise(SDK::RuntimeError, message.to_s)
      def workato = (@workato ||= WorkatoPackage.new)
      def parse_json(source) = workato.parse_json(source)
      def uuid = workato.uuid
      def now = ::Time.now.utc
      def today = ::Time.now.utc.to_date
      def blank = ''
      def clear = nil
      def null = nil
      def skip = nil
      def rand(*args) = ::Kernel.rand(*args)
      def execution_context = @execution.slice('recipe_id')
      def puts(*args) = ::Kernel.puts(*args)
      def sleep(seconds) = ::Kernel.sleep([seconds.to_f, 0].max)
      def encrypt(*) = raise(SDK::Error, 'encrypt is not available on this server')
      def decrypt(*) = raise(SDK::Error, 'decrypt is not available on this server')
      def stream = raise(SDK::Error, 'streams are not available on this server')
      def checkpoint!(*) = raise(SDK::Error, 'checkpoint! is not available on this server')
      def reinvoke_after(seconds:, continue:) = raise(ReinvokeAfter.new(seconds, continue))

      def account_property(name)
        Host.request('account_property', 'name' => name.to_s)['value']
      end

      def lookup(table, conditions = {})
        answer = Host.request('lookup', 'table' => table.to_s, 'conditions' => Convert.plain(conditions))
        Convert.indifferent(answer['row'] || {})
      end

      def __connection = @connection

      # Run a lambda of the connector here, with the arguments it declares.
      def __exec(lambda, *args)
        instance_exec(*SDK.arguments_for(lambda, args), &lambda)
      end

      # A lambda's value with the requests in it sent.
      def __resolve(value)
        case value
        when Request then __resolve(value.response!)
        when ::Hash then value.each_with_object(value.class.new) { |(k, v), h| h[k] = __resolve(v) }
        when ::Array then value.map { |v| __resolve(v) }
        else value
        end
      end

      private

      def __base_uri = @connection.base_uri

      def __detect_on!(response)
        auth = @connection.authorization
        return unless auth&.reauthorizable?
        return if auth.detect_on.empty?

        matched = auth.detect_on.any? do |pattern|
          pattern === response
        rescue ::StandardError
          false
        end
        raise SDK::DetectOnUnauthorizedRequestError, response.to_s[0, 2000] if matched
      end

      # Sends a request with the connection's authentication; refreshes once when `refresh_on` says.
      def __authorized(request)
        auth = @skip_apply ? nil : @connection.authorization
        apply = auth && (auth.source['apply'] || auth.source['credentials'])
        return yield unless apply

        first = true
        begin
          settings = @connection.settings
          args = auth.oauth2? ? [settings, settings['access_token'], nil] : [settings, nil]
          ApplyContext.new(self, request).instance_exec(*SDK.arguments_for(apply, args), &apply)
          request.__settings_changed!
          yield
        rescue SDK::RequestFailedError, SDK::DetectOnUnauthorizedRequestError => e
          raise unless first

          code = e.respond_to?(:code) ? e.code : nil
          body = e.respond_to?(:response) ? e.response : nil
          raise unless auth.refresh?(code, body, e.message) && auth.refresh!

          first = false
          retry
        end
      end
    end

    # `apply` runs on the request it authenticates: its headers, params, user... and the SDK's methods.
    class ApplyContext
      REQUEST_METHODS = %i[headers params payload user password digest_auth case_sensitive_headers
                           request_format_json request_format_www_form_urlencoded request_format_xml
                           tls_client_cert current_url current_verb].freeze

      def initialize(context, request)
        @context = context
        @request = request
      end

      REQUEST_METHODS.each do |name|
        define_method(name) { |*args, **kw, &block| @request.__send__(name, *args, **kw, &block) }
      end

      def method_missing(name, *args, &block) = @context.__send__(name, *args, &block)
      def respond_to_missing?(name, include_private = false) = @context.respond_to?(name, include_private)
    end
  end
end
