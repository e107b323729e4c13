# The core extensions connectors call on strings, numbers, hashes, arrays and times: the methods of
# the SDK's "Ruby methods" reference that plain Ruby does not have (most of them are those of
# Rails' Active Support, which the vendor's runtime carries). Written here from their documented
# behaviour.
module Switchboard
  # A Hash whose keys are strings, read and written with strings or symbols alike (`input['id']`
  # and `input[:id]`), as connectors receive their connection, input and closure.
  class HashWithIndifferentAccess < ::Hash
    alias regular_store []=
    private :regular_store
    def self.[](*args)
      new.update(::Hash[*args])
    end

    def initialize(constructor = nil, &block)
      if constructor.is_a?(::Hash)
        super()
        update(constructor)
      else
        super(constructor, &block)
      end
    end

    def convert_key(key)
      key.is_a?(::Symbol) ? key.name : key
    end

    # An array assigned is converted in place (`h[:list] ||= []; h[:list] << x` keeps working);
    # one merged in is copied.
    def convert_value(value, assignment: false)
      case value
      when HashWithIndifferentAccess then value
      when ::Hash then HashWithIndifferentAccess.new(value)
      when ::Array
        return value.map { |v| convert_value(v) } unless assignment && !value.frozen?

        value.map! { |v| convert_value(v) }
      else value
      end
    end

    def [](key) = super(convert_key(key))
    def []=(key, value)
      super(convert_key(key), convert_value(value, assignment: true))
    end
    alias store []=
    def key?(key) = super(convert_key(key))
    alias has_key? key?
    alias include? key?
    alias member? key?
    def fetch(key, *args, &block) = super(convert_key(key), *args, &block)
    def dig(key, *rest) = super(convert_key(key), *rest)
    def delete(key, &block) = super(convert_key(key), &block)
    def values_at(*keys) = super(*keys.map { |k| convert_key(k) })
    def fetch_values(*keys, &block) = super(*keys.map { |k| convert_key(k) }, &block)
    def slice(*keys) = HashWithIndifferentAccess.new(super(*keys.map { |k| convert_key(k) }))
    def except(*keys) = HashWithIndifferentAccess.new(super(*keys.map { |k| convert_key(k) }))
    def default(key = nil) = key.nil? ? super() : super(convert_key(key))

    def update(*others)
      others.each do |other|
        if block_given?
          other.each_pair { |k, v| k = convert_key(k); store_copy(k, key?(k) ? yield(k, self[k], v) : v) }
        else
          # store_copy inlined: this runs for every value that comes in (a call, an answer's JSON).
          other.each_pair do |k, v|
            k = k.name if k.is_a?(::Symbol)
            v = convert_value(v) if v.is_a?(::Hash) || v.is_a?(::Array)
            regular_store(k, v)
          end
        end
      end
      self
    end
    alias merge! update

    def store_copy(key, value) = regular_store(convert_key(key), convert_value(value))
    private :store_copy

    def merge(*others, &block) = dup.update(*others, &block)
    def reverse_merge(other) = HashWithIndifferentAccess.new(other).update(self)
    def dup = HashWithIndifferentAccess.new(self)
    def with_indifferent_access = dup
    def to_hash = each_with_object({}) { |(k, v), h| h[k] = v.is_a?(HashWithIndifferentAccess) ? v.to_hash : v }
    def select(*args, &block) = block ? HashWithIndifferentAccess.new(super) : super
    def reject(*args, &block) = block ? HashWithIndifferentAccess.new(super) : super
    def compact = HashWithIndifferentAccess.new(super)
    def transform_values(*args, &block) = block ? HashWithIndifferentAccess.new(super) : super
    def transform_keys(*args, &block) = args.empty? && !block ? super : ::Hash.new.merge(super)
  end

  # `2.days`, `30.minutes`: a length of time, calendar-aware for months and years.
  class Duration
    PARTS = { seconds: 1, minutes: 60, hours: 3600, days: 86_400, weeks: 604_800, months: 2_629_746, years: 31_556_952 }.freeze

    attr_reader :value, :parts

    def initialize(parts)
      @parts = parts
      @value = parts.sum { |unit, n| n * PARTS.fetch(unit) }
    end

    def to_i = value.to_i
    def to_f = value.to_f
    def to_r = value.to_r
    def to_s = value.to_s
    def inspect = parts.map { |unit, n| "#{n} #{unit}" }.join(', ')
    def ==(other) = other.is_a?(Duration) ? value == other.value : value == other
    def +(other) = other.is_a?(Duration) ? Duration.new(parts.merge(other.parts) { |_, a, b| a + b }) : Duration.new(parts.merge(seconds: (parts[:seconds] || 0) + other))
    def -(other) = self + (other.is_a?(Duration) ? -other : -other)
    def -@ = Duration.new(parts.transform_values(&:-@))
    def *(other) = Duration.new(parts.transform_values { |n| n * other })
    def coerce(other) = [other, value]
    def <=>(other) = value <=> (other.is_a?(Duration) ? other.value : other)
    include Comparable

    def since(time = ::Time.now.utc)
      time = time.to_time if time.is_a?(::Date) && !time.is_a?(::DateTime)
      months = (parts[:months] || 0) + 12 * (parts[:years] || 0)
      result = months.zero? ? time : time.advance_months(months)
      rest = parts.except(:months, :years).sum { |unit, n| n * PARTS.fetch(unit) }
      result + rest
    end
    alias from_now since
    alias after since

    def ago(time = ::Time.now.utc) = (-self).since(time)
    alias until ago
    alias before ago
  end

  module DateCalc
    module_function

    def days_in_month(year, month) = ::Date.new(year, month, -1).day
  end
end

class Object
  def blank? = respond_to?(:empty?) ? !!empty? : !self
  def present? = !blank?
  def presence = present? ? self : nil
  def try(method = nil, *args, &block)
    return yield(self) if method.nil? && block
    return nil if method.nil?

    public_send(method, *args, &block) if respond_to?(method)
  end
  alias try! try
  def in?(collection) = collection.include?(self)
  def presence_in(collection) = in?(collection) ? self : nil
  def to_param = to_s
  def to_query(key) = "#{CGI.escape(key.to_param)}=#{CGI.escape(to_param.to_s)}"
  def deep_dup = duplicable? ? dup : self
  def duplicable? = true
  def is_true?(null_true: false) = false
  def is_not_true?(null_not_true: true) = !is_true?
  def as_json = Switchboard::Convert.plain(self)
end

class NilClass
  def blank? = true
  def try(*) = nil
  def try!(*) = nil
  def to_param = self
  def is_true?(null_true: false) = null_true
  def is_not_true?(null_not_true: true) = null_not_true
end

class FalseClass
  def blank? = true
  def to_param = self
  def is_true?(null_true: false) = false
end

class TrueClass
  def blank? = false
  def to_param = self
  def is_true?(null_true: false) = true
end

class Numeric
  def blank? = false

  Switchboard::Duration::PARTS.each_key do |unit|
    define_method(unit) { Switchboard::Duration.new(unit => self) }
    define_method(unit.to_s.chomp('s')) { Switchboard::Duration.new(unit => self) }
  end
  alias fortnights weeks
  def fortnight = weeks * 2

  def is_int? = is_a?(::Integer) || (finite? && self == to_i)
  def is_number? = true
  def to_currency(options = {})
    unit = options.fetch(:unit, '$')
    precision = options.fetch(:precision, 2)
    delimiter = options.fetch(:delimiter, ',')
    separator = options.fetch(:separator, '.')
    whole, fraction = format("%.#{precision}f", abs).split('.')
    whole = whole.reverse.scan(/\d{1,3}/).join(delimiter).reverse
    text = fraction ? "#{whole}#{separator}#{fraction}" : whole
    (negative? ? '-' : '') + unit.to_s + text
  end
end

class Integer
  def ordinal
    return 'th' if (11..13).cover?(abs % 100)

    { 1 => 'st', 2 => 'nd', 3 => 'rd' }.fetch(abs % 10, 'th')
  end
  def ordinalize = "#{self}#{ordinal}"
  def multiple_of?(number) = number.zero? ? zero? : (self % number).zero?
  def to_time = ::Time.at(self).utc
end

class String
  def blank? = empty? || match?(/\A[[:space:]]*\z/)
  def to_param = self
  def is_int? = match?(/\A[-+]?\d+\z/)
  def is_number? = match?(/\A[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\z/)
  def is_true?(null_true: false)
    return null_true if blank?

    %w[true t yes y 1].include?(strip.downcase)
  end
  def starts_with?(*prefixes) = start_with?(*prefixes)
  def ends_with?(*suffixes) = end_with?(*suffixes)
  def exclude?(string) = !include?(string)
  def squish = strip.gsub(/[[:space:]]+/, ' ')
  def strip_tags = gsub(%r{<[^>]*>}, '')
  def truncate(length, omission: '...', separator: nil)
    return dup if self.length <= length

    stop = length - omission.length
    stop = rindex(separator, stop) || stop if separator
    "#{self[0, stop]}#{omission}"
  end
  def first(n = 1) = self[0, n] || ''
  def last(n = 1) = n >= length ? dup : self[-n, n]
  def at(index) = self[index]
  def from(index) = self[index..] || ''
  def to(index) = self[0..index] || ''
  def remove(*patterns) = patterns.reduce(dup) { |s, p| s.gsub(p, '') }
  def quote = gsub("'", "''")
  def underscore = gsub('::', '/').gsub(/([A-Z\d]+)([A-Z][a-z])/, '\1_\2').gsub(/([a-z\d])([A-Z])/, '\1_\2').tr('-', '_').downcase
  def camelize(first = :upper)
    s = split('_').map.with_index { |w, i| i.zero? && first == :lower ? w.downcase : w.capitalize }.join
    s.gsub('/') { '::' }
  end
  def humanize = sub(/_id\z/, '').tr('_', ' ').strip.then { |s| s.empty? ? s : s[0].upcase + s[1..].downcase }
  def titleize = underscore.humanize.gsub(/\b(?<!['’`])[a-z]/, &:upcase)
  def labelize(*acronyms)
    words = tr('_', ' ').strip.split(/\s+/).map.with_index do |word, i|
      if acronyms.map(&:to_s).map(&:downcase).include?(word.downcase) then word.upcase
      elsif i.zero? then word[0].upcase + word[1..].to_s.downcase
      else word.downcase
      end
    end
    words.join(' ')
  end
  def parameterize(separator: '-')
    transliterate.downcase.gsub(/[^a-z0-9\-_]+/, separator).gsub(/#{Regexp.escape(separator)}{2,}/, separator)
                 .gsub(/\A#{Regexp.escape(separator)}|#{Regexp.escape(separator)}\z/, '')
  end
  def transliterate(replacement = '?')
    unicode_normalize(:nfkd).gsub(/\p{Mn}/, '').encode('ASCII', invalid: :replace, undef: :replace, replace: replacement)
  end
  IRREGULAR = { 'person' => 'people', 'man' => 'men', 'child' => 'children', 'sex' => 'sexes', 'move' => 'moves' }.freeze
  def pluralize(count = nil)
    return dup if count == 1
    return IRREGULAR[downcase] if IRREGULAR.key?(downcase)
    return self if match?(/(equipment|information|rice|money|species|series|fish|sheep|jeans|news)\z/i)
    return sub(/y\z/i, 'ies') if match?(/[^aeiou]y\z/i)
    return "#{self}es" if match?(/(s|x|z|ch|sh)\z/i)

    "#{self}s"
  end
  def singularize
    inverse = IRREGULAR.invert
    return inverse[downcase] if inverse.key?(downcase)
    return sub(/ies\z/i, 'y') if match?(/[^aeiou]ies\z/i)
    return sub(/es\z/i, '') if match?(/(s|x|z|ch|sh)es\z/i)
    return chop if end_with?('s') && !end_with?('ss')

    dup
  end
  def split_strip_compact(pattern, parts = 0) = split(pattern, parts).map(&:strip).reject(&:empty?)

  def to_time(form = :utc, format: nil)
    return nil if blank?

    time = format ? ::Time.strptime(self, format) : ::Time.parse(self)
    form == :local ? time : time.utc
  rescue ::ArgumentError
    raise ::ArgumentError, "invalid date: #{inspect}"
  end
  def to_date(format: nil) = blank? ? nil : (format ? ::Date.strptime(self, format) : ::Date.parse(self))
  def to_datetime = blank? ? nil : ::DateTime.parse(self)

  def binary? = encoding == ::Encoding::BINARY && !dup.force_encoding('UTF-8').valid_encoding?
  def as_string(encoding) = dup.force_encoding(encoding)
  def as_utf8 = dup.force_encoding('UTF-8')
  def base64 = Base64.encode64(self)
  def encode_base64 = Base64.strict_encode64(self)
  def decode_base64 = Base64.decode64(self)
  def encode_urlsafe_base64 = Base64.urlsafe_encode64(self)
  def decode_urlsafe_base64 = Base64.urlsafe_decode64(self)
  def encode_url = CGI.escape(self)
  def decode_url = CGI.unescape(self)
  def to_hex = unpack1('H*')
  alias encode_hex to_hex
  def decode_hex = [self].pack('H*')
  def encode_sha256 = Digest::SHA256.digest(self)
  def encode_sha512 = Digest::SHA512.digest(self)
  def sha1 = Digest::SHA1.digest(self)
  def md5_hexdigest = Digest::MD5.hexdigest(self)
  def hmac_sha256(key) = Switchboard::Crypto.hmac('sha256', key, self)
  def hmac_sha512(key) = Switchboard::Crypto.hmac('sha512', key, self)
  def hmac_sha1(key) = Switchboard::Crypto.hmac('sha1', key, self)
  def hmac_md5(key) = Switchboard::Crypto.hmac('md5', key, self)
  def rsa_sha256(key) = Switchboard::Crypto.sign('sha256', key, self)
  def rsa_sha512(key) = Switchboard::Crypto.sign('sha512', key, self)
  def from_xml = Switchboard::Xml.parse(self)
  def parse_json = JSON.parse(self)
end

class Symbol
  def to_param = to_s
  def labelize(*acronyms) = to_s.labelize(*acronyms)
end

class Array
  def self.wrap(object)
    if object.nil? then []
    elsif object.respond_to?(:to_ary) then object.to_ary || [object]
    else [object]
    end
  end

  def to_param = map(&:to_param).join('/')
  def to_query(key)
    prefix = "#{key}[]"
    return "#{CGI.escape(prefix)}=" if empty?

    map { |value| value.to_query(prefix) }.join('&')
  end
  def second = self[1]
  def third = self[2]
  def fourth = self[3]
  def fifth = self[4]
  def forty_two = self[41]
  def from(position) = self[position..] || []
  def to(position) = position >= 0 ? first(position + 1) : self[0..position]
  def excluding(*elements) = self - elements.flatten(1)
  alias without excluding
  def including(*elements) = self + elements.flatten(1)
  def extract_options! = last.is_a?(::Hash) ? pop : {}
  def in_groups_of(number, fill_with = nil)
    groups = each_slice(number).to_a
    groups.last.fill(fill_with, groups.last.size...number) unless fill_with == false || groups.empty?
    block_given? ? groups.each { |g| yield g } : groups
  end
  def to_sentence(words_connector: ', ', two_words_connector: ' and ', last_word_connector: ', and ')
    case size
    when 0 then ''
    when 1 then self[0].to_s
    when 2 then "#{self[0]}#{two_words_connector}#{self[1]}"
    else "#{self[0...-1].join(words_connector)}#{last_word_connector}#{self[-1]}"
    end
  end
  def smart_join(separator) = map { |v| v.to_s.strip }.reject(&:empty?).join(separator)
  def format_map(format) = map { |v| v.is_a?(::Array) ? format % v : (v.is_a?(::Hash) ? format % v.transform_keys(&:to_sym) : format % v) }
  def deep_dup = map(&:deep_dup)
  # Schema helpers on a list of fields (`object_definitions['user'].only('id', 'name')`).
  def only(*names) = select { |f| f.is_a?(::Hash) && names.map(&:to_s).include?((f['name'] || f[:name]).to_s) }
  def ignored(*names) = reject { |f| f.is_a?(::Hash) && names.map(&:to_s).include?((f['name'] || f[:name]).to_s) }
  def required(*names)
    map do |f|
      next f unless f.is_a?(::Hash) && names.map(&:to_s).include?((f['name'] || f[:name]).to_s)

      f.merge('optional' => false)
    end
  end
  def where(conditions = {})
    select do |item|
      conditions.all? do |key, expected|
        actual = item.respond_to?(:[]) && !item.is_a?(::String) ? (item[key.to_s].nil? ? item[key.to_sym] : item[key.to_s]) : nil
        expected.is_a?(::Array) || expected.is_a?(::Range) ? expected.include?(actual) : expected === actual
      end
    end
  end
end

module Enumerable
  def pluck(*keys)
    map do |item|
      values = keys.map { |k| item.is_a?(::Hash) ? (item.key?(k.to_s) ? item[k.to_s] : item[k.to_sym]) : item.public_send(k) }
      keys.one? ? values.first : values
    end
  end
  def index_by = each_with_object({}) { |item, h| h[yield(item)] = item }
  def many? = block_given? ? count { |i| yield i } > 1 : count > 1
  def exclude?(object) = !include?(object)
end

class Hash
  def with_indifferent_access = Switchboard::HashWithIndifferentAccess.new(self)
  def symbolize_keys = transform_keys { |k| k.respond_to?(:to_sym) ? k.to_sym : k }
  def stringify_keys = transform_keys(&:to_s)
  def deep_symbolize_keys = deep_transform_keys { |k| k.respond_to?(:to_sym) ? k.to_sym : k }
  def deep_stringify_keys = deep_transform_keys(&:to_s)
  def deep_transform_keys(&block)
    each_with_object({}) do |(k, v), h|
      h[yield(k)] = case v
                    when ::Hash then v.deep_transform_keys(&block)
                    when ::Array then v.map { |i| i.is_a?(::Hash) ? i.deep_transform_keys(&block) : i }
                    else v
                    end
    end
  end
  def deep_merge(other, &block)
    merge(other) do |key, mine, theirs|
      if mine.is_a?(::Hash) && theirs.is_a?(::Hash) then mine.deep_merge(theirs, &block)
      elsif block then yield(key, mine, theirs)
      else theirs
      end
    end
  end
  def deep_merge!(other, &block) = replace(deep_merge(other, &block))
  def reverse_merge(other) = other.merge(self)
  def reverse_merge!(other) = replace(other.merge(self))
  def only(*keys) = slice(*keys.flat_map { |k| [k.to_s, k.to_s.to_sym] })
  def to_query(namespace = nil)
    pairs = filter_map do |key, value|
      value.to_query(namespace ? "#{namespace}[#{key}]" : key) unless value.is_a?(::Hash) && value.empty?
    end
    pairs.sort.join('&')
  end
  alias to_param to_query
  def encode_www_form = URI.encode_www_form(self)
  def deep_dup = each_with_object(dup) { |(k, v), h| h[k.deep_dup] = v.deep_dup }
  def assert_valid_keys(*valid)
    valid = valid.flatten
    each_key { |k| raise ::ArgumentError, "Unknown key: #{k.inspect}" unless valid.include?(k) }
  end
end

module Switchboard
  module TimeCalc
    def advance_months(months)
      month_index = year * 12 + (month - 1) + months
      y, m = month_index.divmod(12)
      d = [day, DateCalc.days_in_month(y, m + 1)].min
      if is_a?(::Time)
        utc? ? ::Time.utc(y, m + 1, d, hour, min, sec + subsec) : ::Time.new(y, m + 1, d, hour, min, sec + subsec, utc_offset)
      else
        self.class.new(y, m + 1, d)
      end
    end
  end
end

class Time
  include Switchboard::TimeCalc

  def beginning_of_day = change(hour: 0)
  alias midnight beginning_of_day
  def end_of_day = change(hour: 23, min: 59, sec: 59.999999r)
  def beginning_of_hour = change(min: 0)
  def end_of_hour = change(min: 59, sec: 59.999999r)
  def beginning_of_minute = change(sec: 0)
  def beginning_of_week(start = :monday) = (self - ((wday - (start == :sunday ? 0 : 1)) % 7) * 86_400).beginning_of_day
  def end_of_week = (beginning_of_week + 6 * 86_400).end_of_day
  def beginning_of_month = change(day: 1, hour: 0)
  def end_of_month = change(day: Switchboard::DateCalc.days_in_month(year, month)).end_of_day
  def beginning_of_year = change(month: 1, day: 1, hour: 0)
  def end_of_year = change(month: 12, day: 31).end_of_day
  def change(options)
    y = options.fetch(:year, year)
    mo = options.fetch(:month, month)
    d = options.fetch(:day, day)
    h = options.fetch(:hour, hour)
    mi = options.fetch(:min, options.key?(:hour) ? 0 : min)
    s = options.fetch(:sec, options.key?(:hour) || options.key?(:min) ? 0 : sec + subsec)
    utc? ? ::Time.utc(y, mo, d, h, mi, s) : ::Time.new(y, mo, d, h, mi, s, utc_offset)
  end
  def advance(options)
    t = self
    t = t.advance_months(options[:months].to_i + 12 * options[:years].to_i) if options[:months] || options[:years]
    t + options.slice(:weeks, :days, :hours, :minutes, :seconds).sum { |u, n| n * Switchboard::Duration::PARTS.fetch(u) }
  end
  def ago(seconds) = self - seconds.to_r
  def since(seconds) = self + seconds.to_r
  def yesterday = self - 86_400
  def tomorrow = self + 86_400
  def to_date = ::Date.new(year, month, day)
  def to_time = self
  def yweek = strftime('%V').to_i
  def in_time_zone(zone = 'UTC') = Switchboard::Zones.in_zone(self, zone)
  def to_fs(format = :default)
    case format
    when :db then utc.strftime('%Y-%m-%d %H:%M:%S')
    when :iso8601 then iso8601
    when :rfc822 then strftime('%a, %d %b %Y %H:%M:%S %z')
    when :number then strftime('%Y%m%d%H%M%S')
    else to_s
    end
  end
  alias to_formatted_s to_fs

  module DurationArithmetic
    def +(other) = other.is_a?(Switchboard::Duration) ? other.since(self) : super
    def -(other) = other.is_a?(Switchboard::Duration) ? other.ago(self) : super
  end
  prepend DurationArithmetic
end

class Date
  include Switchboard::TimeCalc

  def beginning_of_month = self.class.new(year, month, 1)
  def end_of_month = self.class.new(year, month, -1)
  def beginning_of_year = self.class.new(year, 1, 1)
  def end_of_year = self.class.new(year, 12, 31)
  def beginning_of_week(start = :monday) = self - ((wday - (start == :sunday ? 0 : 1)) % 7)
  def end_of_week = beginning_of_week + 6
  def beginning_of_day = to_time
  def yesterday = self - 1
  def tomorrow = self + 1
  def ago(seconds) = to_time - seconds.to_r
  def since(seconds) = to_time + seconds.to_r
  def yweek = strftime('%V').to_i
  def to_fs(format = :default) = format == :db ? strftime('%Y-%m-%d') : to_s
  alias to_formatted_s to_fs
  def in_time_zone(zone = 'UTC') = Switchboard::Zones.in_zone(::Time.utc(year, month, day), zone, local: true)

  module DurationArithmetic
    def +(other)
      return super unless other.is_a?(Switchboard::Duration)

      months = (other.parts[:months] || 0) + 12 * (other.parts[:years] || 0)
      days = ((other.parts[:days] || 0) + 7 * (other.parts[:weeks] || 0))
      seconds = (other.parts[:hours] || 0) * 3600 + (other.parts[:minutes] || 0) * 60 + (other.parts[:seconds] || 0)
      result = (months.zero? ? self : advance_months(months)) + days
      seconds.zero? ? result : result.to_time + seconds
    end
    def -(other) = other.is_a?(Switchboard::Duration) ? self + -other : super
  end
  prepend DurationArithmetic
end

module Switchboard
  # Time zones by name come from the host (the worker's ICU); offsets are applied here.
  module Zones
    module_function

    def in_zone(time, zone, local: false)
      offset = offset_of(zone, time)
      if local
        ::Time.new(time.year, time.month, time.day, time.hour, time.min, time.sec, offset_of(zone, time - offset))
      else
        time.getlocal(offset)
      end
    end

    def offset_of(zone, time)
      name = zone.to_s
      return 0 if name.empty? || %w[UTC Etc/UTC GMT Z].include?(name)
      return ::Time.now.getlocal(name).utc_offset if name.match?(/\A[+-]\d{2}:?\d{2}\z/)

      answer = Host.request('tz', 'zone' => name, 'epoch_ms' => (time.to_r * 1000).to_i)
      answer['offset_seconds'].to_i
    end
  end

  module Crypto
    module_function

    def b64(value) = Base64.strict_encode64(value.to_s)
    def unb64(value) = Base64.strict_decode64(value.to_s)

    def hmac(digest, key, data)
      raise ::TypeError, 'the key must be a String' unless key.is_a?(::String)

      unb64(Host.crypto('hmac', 'digest' => digest, 'key' => b64(key), 'data' => b64(data))['value'])
    end

    def sign(digest, key, data)
      unb64(Host.crypto('sign', 'digest' => digest, 'key' => key.to_s, 'data' => b64(data))['value'])
    end

    def verify(digest, key, data, signature)
      Host.crypto('verify', 'digest' => digest, 'key' => key.to_s, 'data' => b64(data), 'signature' => b64(signature))['ok']
    end
  end
end
