# Values between Ruby and the host: what a lambda returns becomes plain JSON (times as ISO 8601,
# symbols as strings, requests resolved); what comes in becomes hashes with indifferent access.
# XML reads into and writes from the vendor's hash shape (`{ "root" => [{ "@attr" => "v",
# "child" => [{ "content!" => "text" }] }] }`).
module Switchboard
  module SDK
    class Error < ::StandardError; end
    # `error("...")` in a connector: the step fails with this message.
    class RuntimeError < Error; end
    class ArgumentError < Error; end
    class InvalidDefinitionError < Error; end
    class InvalidURIError < Error; end
    class MissingRequiredInput < Error; end
    class RequestTimeoutError < Error; end
    class ResponseFormatError < Error; end
    class RequestFormatError < Error; end
    class DetectOnUnauthorizedRequestError < Error; end
    # `refresh`, `acquire` or the token endpoint failed after a request asked for new credentials.
    class RefreshFailedError < Error; end

    # A non-2xx answer nobody handled.
    class RequestFailedError < Error
      attr_reader :code, :response, :method, :headers

      def initialize(message, code:, response:, method:, headers: {})
        super(message)
        @code = code
        @response = response
        @method = method
        @headers = headers
      end
    end
  end

  module Convert
    MAX_DEPTH = 100

    module_function

    # Plain JSON values: what crosses to the host.
    def plain(value, depth = 0)
      raise SDK::Error, 'the value is nested too deeply' if depth > MAX_DEPTH

      case value
      when nil, true, false, ::Integer then value
      when ::Float then value.finite? ? value : nil
      when ::String then text(value)
      when ::Symbol then value.name
      when ::Hash then value.each_with_object({}) { |(k, v), h| h[k.is_a?(::Symbol) ? k.name : text(k.to_s)] = plain(v, depth + 1) }
      when ::Array then value.map { |v| plain(v, depth + 1) }
      when Request then plain(value.response!, depth + 1)
      when ::Time then value.utc? ? value.iso8601(3).sub(/\+00:00\z/, 'Z') : value.iso8601(3)
      when ::DateTime then value.iso8601(3)
      when ::Date then value.iso8601
      when Duration then value.to_i
      when ::Rational then value.to_f
      when ::Set then plain(value.to_a, depth + 1)
      when ::Numeric then value.respond_to?(:to_f) ? value.to_f : value.to_s
      else value.respond_to?(:to_h) ? plain(value.to_h, depth + 1) : text(value.to_s)
      end
    end

    # A string as JSON can carry it: UTF-8 as it is; bytes that are not UTF-8 replaced.
    def text(string)
      return string if string.encoding == ::Encoding::UTF_8 && string.valid_encoding?

      utf8 = string.dup.force_encoding(::Encoding::UTF_8)
      utf8.valid_encoding? ? utf8 : utf8.scrub("\uFFFD")
    end

    # What a lambda receives: hashes with indifferent access, all the way down.
    def indifferent(value)
      case value
      when ::Hash then HashWithIndifferentAccess.new(value)
      when ::Array then value.map { |v| indifferent(v) }
      else value
      end
    end
  end

  module Xml
    module_function

    def parse(text, strip_namespaces: false)
      document = REXML::Document.new(text.to_s)
      root = document.root
      raise SDK::ResponseFormatError, 'the answer is not XML' unless root

      { name_of(root, strip_namespaces) => [element(root, strip_namespaces)] }
    rescue REXML::ParseException => e
      raise SDK::ResponseFormatError, "the answer is not XML: #{e.message.lines.first.to_s.strip}"
    end

    def name_of(node, strip) = strip ? node.name : node.expanded_name

    def element(node, strip)
      out = HashWithIndifferentAccess.new
      node.attributes.each_attribute { |a| out["@#{strip ? a.name : a.expanded_name}"] = a.value }
      text = node.texts.map(&:value).join
      out['content!'] = text unless text.strip.empty?
      node.elements.each { |child| (out[name_of(child, strip)] ||= []) << element(child, strip) }
      out
    end

    def build(root, payload)
      document = REXML::Document.new
      document << REXML::XMLDecl.new('1.0', 'UTF-8')
      add(document, root.to_s, payload)
      out = +''
      document.write(out)
      out
    end

    def add(parent, name, value)
      case value
      when ::Array then value.each { |v| add(parent, name, v) }
      when ::Hash
        element = parent.add_element(name)
        value.each do |k, v|
          key = k.to_s
          if key.start_with?('@') then element.add_attribute(key[1..], v.to_s)
          elsif key == 'content!' then element.add_text(v.to_s)
          else add(element, key, v)
          end
        end
      else
        parent.add_element(name).add_text(value.nil? ? '' : value.to_s)
      end
    end
  end
end
