# A connector: the Hash its source evaluates to, and the operations a path names
# (`test`, `actions.<name>.execute`, `triggers.<name>.poll`, `methods.<name>`...), each given the
# parameters it takes by name, as the vendor's `exec` command does.
module Switchboard
  module SDK
    # The source is evaluated on one of these: nothing of the runtime is at hand by name.
    class SourceScope
      def __binding = binding
    end

    class Connector
      MAX_POLL_PAGES = 1000
      MAX_REINVOKES = 10

      attr_reader :source

      def self.evaluate(text)
        value = SourceScope.new.__binding.eval(text, 'connector.rb', 1)
        raise InvalidDefinitionError, "the connector's source must evaluate to a Hash, not #{value.class}" unless value.is_a?(::Hash)

        new(value)
      end

      def initialize(definition)
        @source = Convert.indifferent(definition)
        raise InvalidDefinitionError, "the connector has no title (its Hash needs a 'title' key)" if @source['title'].blank?
      end

      def methods_source = @source['methods'] || {}

      # Runs the operation a path names with the named parameters it takes.
      def invoke(path, params, updates)
        settings = params['settings'] || {}
        connection = Connection.new(@source['connection'], settings, methods_source, updates)
        context = Context.new(connection, execution: params.slice('recipe_id'))
        parts = path.to_s.split('.')
        case parts
        in ['describe'] then describe
        in ['test'] then run(context, @source['test'], 'test', [connection.settings])
        in ['webhook_keys']
          raise InvalidDefinitionError, 'the connector has no webhook_keys lambda' unless @source['webhook_keys'].is_a?(::Proc)

          run(context, @source['webhook_keys'], 'webhook_keys', [params['params'] || {}, params['headers'] || {}, params['payload']])
        in ['connection', 'base_uri'] then connection.base_uri
        in ['connection', 'authorize'] then authorize(connection, context)
        in ['connection', 'authorization', operation] then authorization(connection, operation, params)
        in ['actions', name] then action_invoke(context, operation_of('actions', name), params)
        in ['actions', name, operation] then action(context, name, operation_of('actions', name), operation, params)
        in ['triggers', name, operation] then trigger(context, name, operation_of('triggers', name), operation, params)
        in ['methods', name] then context.call(name, *::Array.wrap(params['args']))
        in ['pick_lists', name] then pick_list(context, name, params)
        in ['object_definitions', name, 'fields'] then ObjectDefinitions.new(self, context, connection, params['config_fields'] || {})[name]
        else raise SDK::ArgumentError, "#{path} is not a path this runtime knows"
        end
      end

      # The connector as data: what the host lists and checks without running a lambda.
      def describe
        auth = @source.dig('connection', 'authorization') || {}
        {
          'title' => @source['title'],
          'description' => text_or_nil(@source['description']),
          'connection' => {
            'fields' => static_fields(@source.dig('connection', 'fields')),
            'authorization' => describe_auth(auth)
          },
          'actions' => describe_operations(@source['actions'], :action),
          'triggers' => describe_operations(@source['triggers'], :trigger),
          'methods' => (@source['methods'] || {}).keys,
          'pick_lists' => (@source['pick_lists'] || {}).keys,
          'object_definitions' => (@source['object_definitions'] || {}).keys,
          'custom_action' => @source['custom_action'] ? true : false,
          'webhook_keys' => @source['webhook_keys'].is_a?(::Proc),
          'problems' => problems
        }
      end

      # What would fail when run: operations without their lambda, lists that are not lambdas.
      def problems
        out = []
        (@source['actions'] || {}).each do |name, action|
          out << "actions.#{name} has no execute lambda" unless action.is_a?(::Hash) && action['execute'].is_a?(::Proc)
        end
        (@source['triggers'] || {}).each do |name, trigger|
          next if trigger.is_a?(::Hash) && (trigger['poll'].is_a?(::Proc) || trigger['webhook_notification'].is_a?(::Proc))

          out << "triggers.#{name} has neither a poll nor a webhook_notification lambda"
        end
        %w[methods pick_lists].each do |kind|
          (@source[kind] || {}).each { |name, value| out << "#{kind}.#{name} is not a lambda" unless value.is_a?(::Proc) }
        end
        type = @source.dig('connection', 'authorization', 'type').to_s
        known = %w[none basic_auth api_key custom_auth custom oauth2 multi aws_auth]
        out << "connection.authorization.type #{type} is not one of #{known.join(', ')}" unless type.empty? || known.include?(type)
        out << 'test is not a lambda' if @source.key?('test') && !@source['test'].is_a?(::Proc)
        out
      end

      private

      def operation_of(kind, name)
        operation = (@source[kind] || {})[name]
        raise SDK::ArgumentError, "the connector has no #{kind.chomp('s')} named #{name}" unless operation.is_a?(::Hash)

        operation
      end

      def run(context, lambda, what, args)
        raise InvalidDefinitionError, "the connector has no #{what} lambda" unless lambda.is_a?(::Proc)

        Convert.indifferent(context.__resolve(context.__exec(lambda, *args)))
      end

      def authorize(connection, context)
        auth = connection.authorization
        if auth && auth.type == 'custom_auth' && auth.source['acquire'] && connection.settings['__skip_acquire'].blank?
          connection.update!(auth.tokens_of(auth.acquire))
        end
        run(context, @source['test'], 'test', [connection.settings]) if @source['test']
        { 'authorized' => true }
      end

      def authorization(connection, operation, params)
        auth = connection.authorization
        raise InvalidDefinitionError, 'the connection has no authorization' unless auth

        case operation
        when 'acquire'
          result = auth.acquire(params['oauth2_code'], params['redirect_url'], params['code_verifier'].presence)
          connection.update!(auth.tokens_of(result))
          result
        when 'refresh' then auth.refresh(params['refresh_token'])
        when 'pkce' then auth.pkce(params['verifier'].to_s, params['challenge'].to_s)
        when 'authorization_url', 'token_url', 'client_id', 'client_secret' then auth.value_of(operation)
        when 'type' then auth.type
        # Whether the authorization (a `multi`'s selected option) connects through the OAuth 2.0 redirect.
        when 'authorization_code' then auth.oauth2? && auth.source['authorization_url'].present?
        when 'refresh_on' then auth.refresh_on.map(&:to_s)
        when 'detect_on' then auth.detect_on.map(&:to_s)
        else raise SDK::ArgumentError, "connection.authorization.#{operation} is not a path this runtime knows"
        end
      end

      def schema_fields(context, operation, key, params)
        lambda = operation[key]
        return [] if lambda.nil?
        return lambda unless lambda.is_a?(::Proc)

        definitions = ObjectDefinitions.new(self, context, context.__connection, params['config_fields'] || {})
        ::Array.wrap(context.__resolve(context.__exec(lambda, definitions, context.__connection.settings, params['config_fields'] || {})))
      end

      def action(context, name, operation, what, params)
        settings = context.__connection.settings
        case what
        when 'execute'
          continue = params['continue'] || {}
          MAX_REINVOKES.times do
            return run(context, operation['execute'], "actions.#{name}.execute",
                       [settings, params['input'] || {}, params['extended_input_schema'] || [], params['extended_output_schema'] || [], continue])
          rescue ReinvokeAfter => e
            ::Kernel.sleep([[e.seconds.to_f, 0].max, 60].min)
            continue = Convert.indifferent(e.continue || {})
          end
          raise SDK::Error, "actions.#{name} asked to be run again more than #{MAX_REINVOKES} times"
        when 'input_fields', 'output_fields' then schema_fields(context, operation, what, params)
        when 'config_fields' then ::Array.wrap(operation['config_fields'])
        when 'sample_output' then run(context, operation['sample_output'], "actions.#{name}.sample_output", [settings, params['input'] || {}])
        when 'title', 'subtitle', 'description', 'help' then value_or_call(context, operation[what], params)
        else raise SDK::ArgumentError, "actions.#{name}.#{what} is not a path this runtime knows"
        end
      end

      # `actions.<name>` alone: the fields checked and typed, then execute (the vendor's `invoke`).
      def action_invoke(context, operation, params)
        input = Schema.apply_input(params['input'] || {}, ::Array.wrap(operation['config_fields']) + schema_fields(context, operation, 'input_fields', params))
        output_schema = schema_fields(context, operation, 'output_fields', params)
        settings = context.__connection.settings
        result = run(context, operation['execute'], 'execute', [settings, input, [], output_schema, {}])
        Schema.apply_output(result, output_schema)
      end

      def trigger(context, name, operation, what, params)
        connection = context.__connection
        settings = connection.settings
        input = params['input'] || {}
        eis = params['extended_input_schema'] || []
        eos = params['extended_output_schema'] || []
        case what
        when 'poll_page' then poll_page(context, name, operation, settings, input, params['closure'], eis, eos)
        when 'poll'
          events = []
          closure = params['closure']
          MAX_POLL_PAGES.times do
            page = poll_page(context, name, operation, settings, input, closure, eis, eos)
            events = page['events'] + events
            closure = page['next_poll']
            return { 'events' => events, 'can_poll_more' => false, 'next_poll' => closure } unless page['can_poll_more']
          end
          raise SDK::Error, "triggers.#{name}.poll asked for more than #{MAX_POLL_PAGES} pages"
        when 'poll_events'
          # One page with each event's dedup key (what a running recipe needs in one call).
          page = poll_page(context, name, operation, settings, input, params['closure'], eis, eos)
          dedup = operation['dedup']
          page.merge('events' => page['events'].map { |event| { 'event' => event, 'dedup' => dedup ? context.__exec(dedup, event).to_s : nil } })
        when 'dedup'
          raise InvalidDefinitionError, "triggers.#{name} has no dedup lambda" unless operation['dedup']

          context.__exec(operation['dedup'], params['input'] || {})
        when 'webhook_notification'
          output = run(context, operation['webhook_notification'], "triggers.#{name}.webhook_notification",
                       [input, params['payload'], eis, eos, params['headers'] || {}, params['params'] || {}, settings,
                        params['webhook_subscribe_output'] || {}])
          output.is_a?(::Array) ? output : output
        when 'webhook_key'
          raise InvalidDefinitionError, "triggers.#{name} has no webhook_key lambda" unless operation['webhook_key'].is_a?(::Proc)

          run(context, operation['webhook_key'], "triggers.#{name}.webhook_key", [settings, input])
        when 'webhook_subscribe'
          run(context, operation['webhook_subscribe'], "triggers.#{name}.webhook_subscribe",
              [params['webhook_url'].to_s, settings, input, params['recipe_id'].to_s])
        when 'webhook_unsubscribe'
          run(context, operation['webhook_unsubscribe'], "triggers.#{name}.webhook_unsubscribe", [params['webhook_subscribe_output'] || {}])
        when 'input_fields', 'output_fields' then schema_fields(context, operation, what, params)
        when 'config_fields' then ::Array.wrap(operation['config_fields'])
        when 'sample_output' then run(context, operation['sample_output'], "triggers.#{name}.sample_output", [settings, input])
        else raise SDK::ArgumentError, "triggers.#{name}.#{what} is not a path this runtime knows"
        end
      end

      def poll_page(context, name, operation, settings, input, closure, eis, eos)
        output = run(context, operation['poll'], "triggers.#{name}.poll", [settings, input, closure, eis, eos]) || {}
        raise SDK::Error, "triggers.#{name}.poll must return a Hash with events" unless output.is_a?(::Hash)

        events = ::Array.wrap(output['events']).reverse
        next_poll = output['next_poll'].presence || closure
        { 'events' => events, 'can_poll_more' => output['can_poll_more'] ? true : false, 'next_poll' => next_poll }
      end

      def pick_list(context, name, params)
        lambda = (@source['pick_lists'] || {})[name]
        raise SDK::ArgumentError, "the connector has no pick list named #{name}" unless lambda.is_a?(::Proc)

        settings = context.__connection.settings
        args = (params['args'].is_a?(::Hash) ? params['args'] : {}).transform_keys(&:to_sym)
        result = case lambda.parameters.length
                 when 0 then context.instance_exec(&lambda)
                 when 1 then context.instance_exec(settings, &lambda)
                 else
                   keywords = lambda.parameters.any? { |kind, _| %i[key keyreq keyrest].include?(kind) }
                   keywords ? context.instance_exec(settings, **args, &lambda) : context.instance_exec(settings, Convert.indifferent(args), &lambda)
                 end
        context.__resolve(result)
      end

      def value_or_call(context, value, params)
        value.is_a?(::Proc) ? context.__exec(value, params['input'] || {}, params['picklist_label'] || {}) : value
      end

      def text_or_nil(value) = value.is_a?(::String) ? value : nil

      def static_fields(fields)
        return [] unless fields.is_a?(::Array)

        fields.select { |f| f.is_a?(::Hash) }.map { |f| f.reject { |_, v| v.is_a?(::Proc) } }
      end

      def describe_auth(auth)
        type = auth['type'].to_s.presence || 'none'
        out = { 'type' => type }
        if type == 'multi'
          out['options'] = (auth['options'] || {}).to_h do |key, option|
            [key.to_s, { 'name' => option['name'], 'fields' => static_fields(option['fields']), 'authorization' => describe_auth(option) }]
          end
        end
        out['authorization_code'] = type.match?(/oauth2/i) && auth['authorization_url'].present?
        out['refresh'] = auth['refresh'].present? || auth['acquire'].present? || type.match?(/oauth2/i)
        out['pkce'] = auth['pkce'].present?
        out
      end

      def describe_operations(operations, kind)
        return {} unless operations.is_a?(::Hash)

        operations.to_h do |name, operation|
          next [name, { 'title' => name.to_s.labelize }] unless operation.is_a?(::Hash)

          entry = { 'title' => text_or_nil(operation['title']) || name.to_s.labelize,
                    'subtitle' => text_or_nil(operation['subtitle']), 'description' => text_or_nil(operation['description']) }
          entry['config_fields'] = static_fields(operation['config_fields'])
          entry['input_fields'] = static_fields(operation['input_fields']) unless operation['input_fields'].is_a?(::Proc)
          entry['output_fields'] = static_fields(operation['output_fields']) unless operation['output_fields'].is_a?(::Proc)
          if kind == :trigger
            entry['kind'] = operation['webhook_notification'] ? 'webhook' : 'poll'
            entry['dynamic_webhook'] = operation['webhook_subscribe'].present?
            entry['hybrid'] = operation['webhook_notification'].is_a?(::Proc) && operation['poll'].is_a?(::Proc)
            entry['static_webhook'] = operation['webhook_key'].is_a?(::Proc) && @source['webhook_keys'].is_a?(::Proc)
            entry['dedup'] = operation['dedup'].present?
          end
          [name, entry]
        end
      end
    end

    # `object_definitions` as the fields lambdas see them: each definition's fields, made when first read.
    class ObjectDefinitions
      def initialize(connector, context, connection, config_fields)
        @definitions = connector.source['object_definitions'] || {}
        @context = context
        @connection = connection
        @config_fields = config_fields
        @made = {}
        @making = Set.new
      end

      def [](name)
        key = name.to_s
        return @made[key] if @made.key?(key)

        definition = @definitions[key]
        raise SDK::ArgumentError, "the connector has no object definition named #{key}" unless definition.is_a?(::Hash)
        raise SDK::InvalidDefinitionError, "the object definition #{key} refers to itself" if @making.include?(key)

        @making << key
        fields = definition['fields']
        value = fields.is_a?(::Proc) ? @context.__exec(fields, @connection.settings, @config_fields, self) : fields
        @made[key] = ::Array.wrap(@context.__resolve(value))
      ensure
        @making.delete(key)
      end
      alias fetch []
      def dig(name, *rest) = rest.empty? ? self[name] : self[name].dig(*rest)
      def key?(name) = @definitions.key?(name.to_s)
    end

    # What `actions.<name>` does to input and output by their fields: required input, types.
    module Schema
      module_function

      def apply_input(input, fields)
        input = Convert.indifferent(input)
        fields.each do |field|
          next unless field.is_a?(::Hash)

          field = Convert.indifferent(field)
          name = field['name'].to_s
          if field['optional'] == false && input[name].blank?
            raise MissingRequiredInput, "#{field['label'] || name.labelize} is required"
          end
          input[name] = coerce(input[name], field) if input.key?(name)
        end
        input
      end

      def apply_output(output, fields)
        return output unless output.is_a?(::Hash)

        fields.each do |field|
          next unless field.is_a?(::Hash)

          field = Convert.indifferent(field)
          next unless output.key?(field['name'].to_s)

          output[field['name'].to_s] = coerce(output[field['name'].to_s], field)
        end
        output
      end

      def coerce(value, field)
        return value if value.nil?

        case field['type'].to_s
        when 'integer' then value.is_a?(::String) && value.is_int? ? value.to_i : value
        when 'number' then value.is_a?(::String) && value.is_number? ? (value.is_int? ? value.to_i : value.to_f) : value
        when 'boolean' then value.is_a?(::String) ? value.is_true? : value
        when 'object'
          value.is_a?(::Hash) && field['properties'].is_a?(::Array) ? apply_output(value, field['properties']) : value
        when 'array'
          if value.is_a?(::Array) && field['of'].to_s == 'object' && field['properties'].is_a?(::Array)
            value.map { |v| v.is_a?(::Hash) ? apply_output(v, field['properties']) : v }
          else
            value
          end
        else value
        end
      end
    end
  end
end
