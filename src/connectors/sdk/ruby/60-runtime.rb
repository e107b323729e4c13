# The entry point of every call: read the call from the host, run it, hand back its result. A
# connector's source is evaluated once per interpreter state and kept by its source key (the
# interpreter goes back to its pristine state when a call of another key comes, so what is kept
# here is only ever seen by calls of the same key).
module Switchboard
  module Runtime
    @connectors = {}

    module_function

    # Before the snapshot: memory taken from the system and given back to the allocator, so that a
    # call's allocations are served from it and the interpreter goes back to the snapshot in place
    # (a call that grows the memory past it costs a new instance to come back).
    RESERVE_BYTES = 24 * 1024 * 1024

    def ready!
      reserve = "\0" * RESERVE_BYTES
      reserve.clear
      GC.start
      true
    end

    def serve
      call = JSON.parse(Host.receive)
      Kernel.srand(call['seed'].to_i)
      updates = {}
      answer = begin
        value = call['code'] ? run_code(call) : run_connector(call, updates)
        { 'ok' => true, 'value' => Convert.plain(value) }
      rescue Exception => e # rubocop:disable Lint/RescueException -- every failure is the call's answer
        { 'ok' => false, 'error' => describe_error(e, call) }
      end
      answer['settings'] = Convert.plain(updates[:settings]) if updates[:settings]
      Host.result(JSON.generate(answer))
    rescue Exception => e # rubocop:disable Lint/RescueException
      Host.result(JSON.generate('ok' => false, 'error' => { 'class' => e.class.name, 'message' => e.message.to_s[0, 2000] }))
    end

    def run_connector(call, updates)
      key = call['source_key'].to_s
      connector = @connectors[key] ||= begin
        source = Host.request('source')['source'].to_s
        SDK::Connector.evaluate(source)
      end
      connector.invoke(call['path'], Convert.indifferent(call['params'] || {}), updates)
    end

    # A Ruby code step: `input` is at hand, the value of the last expression is the output.
    def run_code(call)
      source = Host.request('source')['source'].to_s
      input = Convert.indifferent(call['input'] || {})
      context = SDK::Context.new(SDK::Connection.new({}, {}, {}, {}))
      context.define_singleton_method(:input) { input }
      context.__resolve(context.instance_eval(source, 'code.rb', 1))
    end

    def describe_error(error, call)
      file = call['code'] ? 'code.rb' : 'connector.rb'
      line = error.backtrace_locations&.find { |l| l.path == file }&.lineno ||
             error.backtrace&.find { |l| l.start_with?("#{file}:") }&.then { |l| l[/\A#{Regexp.escape(file)}:(\d+)/, 1]&.to_i } ||
             (error.is_a?(::SyntaxError) ? error.message[/#{Regexp.escape(file)}:(\d+)/, 1]&.to_i : nil)
      message = error.message.to_s.gsub(/\e\[[0-9;]*m/, '')
      message = message.sub(/\A#{Regexp.escape(file)}:\d+: /, '') if error.is_a?(::SyntaxError)
      out = { 'class' => error.class.name, 'message' => Convert.text(message)[0, 4000], 'line' => line }
      out['status'] = error.code if error.is_a?(SDK::RequestFailedError)
      out['kind'] = kind_of_error(error)
      out
    end

    def kind_of_error(error)
      case error
      when ::SyntaxError then 'syntax'
      when SDK::InvalidDefinitionError then 'definition'
      when SDK::RefreshFailedError then 'refresh'
      when SDK::RequestFailedError then 'http'
      when SDK::RequestTimeoutError then 'timeout'
      when SDK::MissingRequiredInput then 'input'
      when SDK::RuntimeError then 'error'
      when ::NoMemoryError then 'memory'
      when ::SystemStackError then 'stack'
      when HostError then 'host'
      else 'exception'
      end
    end
  end
end
