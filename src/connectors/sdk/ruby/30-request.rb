# The HTTP request builder (D-sdk *HTTP*): `get(url, params)`, `post(url, payload)`... return a
# request that is sent when its value is first needed (a method called on it, or returned from the
# lambda), once. Chainable methods set its parts; the connection's `apply` adds authentication each
# time it is sent; the host sends it (outbound rules, timeouts, the log live there).
module Switchboard
  class Request < ::BasicObject
    REASONS = {
      400 => 'Bad Request', 401 => 'Unauthorized', 402 => 'Payment Required', 403 => 'Forbidden', 404 => 'Not Found',
      405 => 'Method Not Allowed', 406 => 'Not Acceptable', 408 => 'Request Timeout', 409 => 'Conflict', 410 => 'Gone',
      411 => 'Length Required', 412 => 'Precondition Failed', 413 => 'Payload Too Large', 415 => 'Unsupported Media Type',
      422 => 'Unprocessable Entity', 423 => 'Locked', 429 => 'Too Many Requests', 500 => 'Internal Server Error',
      501 => 'Not Implemented', 502 => 'Bad Gateway', 503 => 'Service Unavailable', 504 => 'Gateway Timeout'
    }.freeze

    def initialize(url, method, context)
      @url = url
      @method = method
      @context = context
      @headers = {}
      @request_format = nil
      @response_format = :json
      @done = false
    end

    # Chainable parts (each returns the request).
    def params(params)
      # `get(url)` passes an empty Hash: nothing to keep.
      return self if @params.nil? && params.is_a?(::Hash) && params.empty?

      if params.is_a?(::Hash)
        @params = (@params.is_a?(::Hash) ? @params : HashWithIndifferentAccess.new).merge(params)
      else
        @params = params
      end
      self
    end

    def payload(payload = nil, &block)
      if @payload.is_a?(::Hash) || payload.is_a?(::Hash)
        @payload = HashWithIndifferentAccess.new(@payload.is_a?(::Hash) ? @payload : {})
        @payload.merge!(payload) if payload.is_a?(::Hash)
      elsif !payload.nil?
        @payload = payload
      end
      if block
        @payload = HashWithIndifferentAccess.new if @payload.nil?
        block.call(@payload)
      end
      self
    end

    def headers(headers)
      @headers.merge!(headers.to_h)
      self
    end

    def case_sensitive_headers(headers) = headers(headers)
    def user(user) = tap_self { @user = user }
    def password(password) = tap_self { @password = password }
    def digest_auth = tap_self { @digest_auth = true }
    def follow_redirection = tap_self { @follow = true }
    def ignore_redirection = tap_self { @follow = false }
    def auth_type(type) = tap_self { @auth_type = type }
    def after_response(&block) = tap_self { @after_response = block }

    def after_error_response(*matches, &block)
      @error_matches = matches
      @after_error_response = block
      self
    end

    def format_json = request_format_json.response_format_json
    def request_format_json = tap_self { @request_format = :json }
    def response_format_json = tap_self { @response_format = :json }
    def request_format_www_form_urlencoded = tap_self { @request_format = :form }
    def request_format_multipart_form = tap_self { @request_format = :multipart }
    def request_format_raw = tap_self { @request_format = :raw }
    def response_format_raw = tap_self { @response_format = :raw }

    def request_body(body)
      @payload = body
      @request_format = :raw
      self
    end

    def format_xml(root, namespaces = {}, strip_response_namespaces: false, **rest)
      request_format_xml(root, namespaces.merge(rest)).response_format_xml(strip_response_namespaces: strip_response_namespaces)
    end

    def request_format_xml(root, namespaces = {})
      @request_format = :xml
      @xml_root = root
      @xml_namespaces = namespaces
      self
    end

    def response_format_xml(strip_response_namespaces: false)
      @response_format = :xml
      @strip_namespaces = strip_response_namespaces
      self
    end

    def tls_client_cert(certificate:, key:, passphrase: nil, intermediates: [])
      @tls = { 'certificate' => certificate.to_s, 'key' => key.to_s, 'passphrase' => passphrase&.to_s,
               'intermediates' => ::Array.wrap(intermediates).map(&:to_s) }
      self
    end

    def tls_server_certs(certificates:, strict: true)
      @tls_server = { 'certificates' => ::Array.wrap(certificates).map(&:to_s), 'strict' => strict ? true : false }
      self
    end

    def current_verb = @method
    def current_url = build_url
    def puts(*args) = ::Kernel.puts(*args)

    # The answer: sent now if it was not yet.
    def response!
      return @response if @done

      @response = @context.__send__(:__authorized, self) { exchange }
      @done = true
      @response
    end

    def method_missing(name, *args, &block) = response!.__send__(name, *args, &block)
    def respond_to_missing?(name, include_private = false) = response!.respond_to?(name, include_private)
    def respond_to?(name, include_private = false) = response!.respond_to?(name, include_private)
    def ==(other)
      response! == other
    end

    def !=(other)
      response! != other
    end

    def !
      !response!
    end
    def is_a?(klass) = response!.is_a?(klass)
    alias kind_of? is_a?
    alias instance_of? is_a?
    def class = response!.class
    def inspect = "#<Switchboard::Request #{@method} #{@url}>"

    # Used by the context's authorization around `exchange`.
    def __apply_headers(headers) = @headers.merge!(headers)
    def __settings_changed! = (@built_url = nil)

    private

    def tap_self
      yield
      self
    end

    # An absolute path of plain characters (no dot segments, no fragment): joined to the base's
    # origin as RFC 3986 merges it, without parsing it again.
    PLAIN_PATH = %r{\A/(?!/)(?:[A-Za-z0-9\-_~!$&'()*+,;=:@/]|\.(?![./?]|\z)|%[0-9A-Fa-f]{2})*(?:\?(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*)?\z}
    private_constant :PLAIN_PATH

    def build_url
      base = @context.__send__(:__base_uri)
      url = @url.to_s
      raise SDK::InvalidURIError, "Expected String or URI as request URL, got: #{@url.class}" unless @url.is_a?(::String) || @url.is_a?(::URI::Generic)

      if base && @url.is_a?(::String) && (origin = Request.origin_of(base.to_s)) && PLAIN_PATH.match?(url)
        path, query = url.split('?', 2)
        return with_query("#{origin}#{path}", query)
      end
      uri = base ? Request.parsed_base(base.to_s).merge(url) : ::URI.parse(url)
      raise SDK::InvalidURIError, "bad URI(no host provided): #{url}" if uri.host.to_s.empty?

      query = [uri.query, query_of(@params)].reject { |q| q.nil? || q.empty? }.join('&')
      uri.query = query.empty? ? nil : query
      uri.to_s
    rescue ::URI::InvalidURIError => e
      ::Kernel.raise SDK::InvalidURIError, e.message
    end

    def with_query(url, query)
      return url if query.nil? && @params.nil?

      query = [query, query_of(@params)].reject { |q| q.nil? || q.empty? }.join('&')
      query.empty? ? url : "#{url}?#{query}"
    end

    BASES_KEPT = 32
    private_constant :BASES_KEPT

    class << self
      # A base URI parsed once (a connector's base_uri is the same for every request); kept in the
      # interpreter, which calls of another key never share.
      def parsed_base(text)
        bases = (@bases ||= {})
        bases.clear if bases.size >= BASES_KEPT && !bases.key?(text)
        (bases[text] ||= ::URI.parse(text).freeze)
      end

      # `scheme://authority` of a base with a host, or nil.
      def origin_of(text)
        origins = (@origins ||= {})
        return origins[text] if origins.key?(text)

        origins.clear if origins.size >= BASES_KEPT
        uri = parsed_base(text)
        origins[text] = uri.host.to_s.empty? || uri.opaque ? nil : uri.dup.tap { |u| u.path = ''; u.query = nil; u.fragment = nil }.to_s.freeze
      rescue ::URI::InvalidURIError
        nil
      end
    end

    def query_of(params)
      case params
      when nil then nil
      when ::Hash then params.to_query
      when ::Array then ::URI.encode_www_form(params)
      else params.to_s
      end
    end

    BODILESS = %w[GET HEAD OPTIONS].freeze
    private_constant :BODILESS

    def body_and_type
      format = @request_format || (BODILESS.include?(@method) ? nil : :json)
      case format
      when nil then [nil, nil]
      when :json then [@payload.nil? ? nil : ::JSON.generate(Convert.plain(@payload)), 'application/json']
      when :form then [@payload.is_a?(::Hash) ? @payload.to_query : @payload&.to_s, 'application/x-www-form-urlencoded']
      when :multipart then multipart
      when :xml
        root_payload = @payload.is_a?(::Hash) ? @payload.merge(@xml_namespaces || {}) : @payload
        [@payload.nil? ? nil : Xml.build(@xml_root, root_payload), 'application/xml']
      when :raw then [@payload&.to_s, nil]
      end
    rescue ::JSON::GeneratorError => e
      ::Kernel.raise SDK::RequestFormatError, e.message
    end

    def multipart
      boundary = "----switchboard#{::SecureRandom.hex(12)}"
      body = +''.b
      (@payload || {}).each do |name, value|
        content, content_type, filename = value.is_a?(::Array) ? value : [value, nil, nil]
        body << "--#{boundary}\r\n".b
        if content_type
          body << "Content-Disposition: form-data; name=\"#{name}\"; filename=\"#{filename || ::File.basename(name.to_s)}\"\r\n".b
          body << "Content-Type: #{content_type}\r\n\r\n".b
        else
          body << "Content-Disposition: form-data; name=\"#{name}\"\r\n\r\n".b
        end
        body << content.to_s.b << "\r\n".b
      end
      body << "--#{boundary}--\r\n".b
      [body, "multipart/form-data; boundary=#{boundary}"]
    end

    ACCEPT = { json: 'application/json', xml: 'application/xml' }.freeze
    private_constant :ACCEPT

    def header_named?(name) = @headers.keys.any? { |k| k.to_s.tr('_', '-').casecmp?(name) }

    def wire_headers(content_type)
      out = {}
      @headers.each { |k, v| out[k.is_a?(::Symbol) ? k.name.split('_').map(&:capitalize).join('-') : k.to_s] = v.to_s unless v.nil? }
      out['Content-Type'] = content_type if content_type && !header_named?('content-type')
      if (@user || @password) && !@digest_auth && !header_named?('authorization')
        out['Authorization'] = "Basic #{::Base64.strict_encode64("#{@user}:#{@password}")}"
      end
      out['Accept'] = ACCEPT.fetch(@response_format, '*/*') unless header_named?('accept')
      out
    end

    def send_once(extra_headers = {})
      body, content_type = body_and_type
      request = {
        'method' => @method, 'url' => build_url, 'headers' => wire_headers(content_type).merge(extra_headers),
        'follow_redirects' => @follow
      }
      request['body'] = ::Base64.strict_encode64(body.to_s) unless body.nil?
      request['tls'] = @tls if @tls
      request['tls_server'] = @tls_server if @tls_server
      answer = Host.request('http', 'request' => request)
      if answer['timeout']
        ::Kernel.raise SDK::RequestTimeoutError, answer['message'] || 'the request timed out'
      end
      answer
    end

    def exchange
      answer = send_once
      if answer['status'] == 401 && @digest_auth
        challenge = (answer['headers'] || {}).find { |k, _| k.casecmp?('www-authenticate') }&.last
        answer = send_once('Authorization' => DigestAuth.header(challenge, build_url, @method, @user, @password)) if challenge
      end
      status = answer['status'].to_i
      raw = ::Base64.strict_decode64(answer['body'].to_s)
      plain_headers = {}
      (answer['headers'] || {}).each { |k, v| plain_headers[k.to_s.downcase.tr('-', '_')] = v }
      headers = HashWithIndifferentAccess.new(plain_headers)
      if status >= 200 && status < 300 || (status >= 300 && status < 400 && @follow == false)
        @context.__send__(:__detect_on!, raw)
        parsed = parse(raw, headers)
        @context.__send__(:__detect_on!, parsed)
        return parsed unless @after_response

        @context.__send__(:__exec, @after_response, status, parsed, headers)
      else
        failed(status, raw, headers)
      end
    end

    BLANK = /\A[\s\0]*\z/
    private_constant :BLANK

    def parse(raw, _headers)
      case @response_format
      when :json
        text = Convert.text(raw)
        return HashWithIndifferentAccess.new if BLANK.match?(text)

        begin
          Convert.indifferent(::JSON.parse(text))
        rescue ::JSON::ParserError => e
          ::Kernel.raise SDK::ResponseFormatError, "the answer is not JSON: #{e.message[0, 200]}"
        end
      when :xml then Xml.parse(Convert.text(raw), strip_namespaces: @strip_namespaces)
      else
        utf8 = raw.dup.force_encoding(::Encoding::UTF_8)
        utf8.valid_encoding? ? utf8 : raw
      end
    end

    def failed(status, raw, headers)
      body = Convert.text(raw)
      message = "#{status} #{REASONS.fetch(status, 'Error')}"
      if @after_error_response && (@error_matches || []).any? { |m| error_matches?(m, status, message, body) }
        return @context.__send__(:__exec, @after_error_response, status, body, headers, message)
      end

      ::Kernel.raise SDK::RequestFailedError.new("#{message}: #{body[0, 2000]}".strip.chomp(':'),
                                                code: status, response: body, method: @method, headers: headers)
    end

    def error_matches?(match, status, message, body)
      case match
      when ::Integer then match == status
      when ::String then message.include?(match) || body.include?(match)
      when ::Regexp then match.match?(message) || match.match?(body)
      else false
      end
    end
  end

  # RFC 2617 digest authentication (MD5, qop auth), for `digest_auth`.
  module DigestAuth
    module_function

    def header(challenge, url, method, user, password)
      fields = challenge.to_s.sub(/\ADigest\s+/i, '').scan(/(\w+)=(?:"([^"]*)"|([^,\s]*))/).to_h { |k, q, t| [k, q || t] }
      uri = URI.parse(url)
      path = uri.request_uri
      cnonce = SecureRandom.hex(8)
      ha1 = Digest::MD5.hexdigest("#{user}:#{fields['realm']}:#{password}")
      ha2 = Digest::MD5.hexdigest("#{method}:#{path}")
      qop = fields['qop'].to_s.split(',').map(&:strip).include?('auth') ? 'auth' : nil
      response = if qop
                   Digest::MD5.hexdigest("#{ha1}:#{fields['nonce']}:00000001:#{cnonce}:#{qop}:#{ha2}")
                 else
                   Digest::MD5.hexdigest("#{ha1}:#{fields['nonce']}:#{ha2}")
                 end
      parts = [%(username="#{user}"), %(realm="#{fields['realm']}"), %(nonce="#{fields['nonce']}"), %(uri="#{path}"),
               %(response="#{response}")]
      parts += [%(qop=#{qop}), 'nc=00000001', %(cnonce="#{cnonce}")] if qop
      parts << %(opaque="#{fields['opaque']}") if fields['opaque']
      "Digest #{parts.join(', ')}"
    end
  end
end
