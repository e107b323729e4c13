# The host channel: each request is a length (4 bytes, big-endian) and a JSON object written to
# standard input, whose answer is read back the same way. The worker answers some requests itself
# (the source, cryptography, time zones); the others go to the server (HTTP, waits, account
# properties, a connection's new values). Two messages ask nothing: the call, which the worker puts
# in the channel before Ruby starts, and the result (`=` then its JSON), which takes no answer.
require 'json'
require 'time'
require 'date'
require 'base64'
require 'digest'
require 'securerandom'
require 'set'
require 'uri'
require 'cgi'
require 'stringio'
require 'strscan'
require 'rexml/document'
require 'yaml'

module Switchboard
  class HostError < StandardError; end

  module Host
    module_function

    # Unbuffered: a request is one write, its answer two reads (its length, its bytes); each is a
    # crossing to the host, which costs more than the bytes.
    def io
      @io ||= IO.new(0, 'r+b', autoclose: false)
    end

    def request(op, fields = {})
      json = JSON.generate(fields.merge('op' => op))
      io.syswrite([json.bytesize].pack('N') << json.b)
      answer = JSON.parse(receive)
      raise HostError, answer['error'].to_s if answer.is_a?(::Hash) && answer['error']

      answer
    end

    # The next message the host put in the channel (the call is there before `serve` starts). Its
    # length, then its bytes read into one string (no other copy of what it carries is left).
    def receive
      header = io.sysread(4)
      raise HostError, 'the host channel is closed' unless header.bytesize == 4

      length = header.unpack1('N')
      body = length.zero? ? +'' : io.sysread(length)
      body << io.sysread(length - body.bytesize) while body.bytesize < length
      body.force_encoding(::Encoding::UTF_8)
    rescue ::EOFError, ::IOError
      raise HostError, 'the host channel is closed'
    end

    # The call's result, as JSON text: a message that takes no answer (`=` marks it).
    def result(json)
      io.syswrite([json.bytesize + 1].pack('N') << '=' << json.b)
    end

    def crypto(kind, fields)
      request('crypto', fields.merge('kind' => kind))
    end
  end
end
