// Between the host and the Ruby runtime of custom connectors (src/connectors/sdk/, contract 21):
// what the runtime offers and what the host lends it. The runtime evaluates a connector's source
// and runs its lambdas; it opens no socket: every HTTP request of a lambda comes back to the host
// through `ConnectorHost.http`, answered by the shared transport (src/connectors/http/transport.ts),
// so outbound rules, timeouts, waits on 429/503 and the debug log are the same for every connector.
import type { SchemaField } from './definition.ts';
import type { TransportRequest, TransportResponse } from './http/transport.ts';

/** What the runtime offers. One per process, built lazily, closed with the engine. */
export interface ConnectorRuntime {
  /** Evaluate a connector's source: its definition as data, or a `ConnectorCodeError`. */
  evaluate(source: string): Promise<EvaluatedConnector>;
  /** Run one lambda of a connector with its arguments. */
  run(call: LambdaCall, host: ConnectorHost): Promise<LambdaOutcome>;
  close(): Promise<void>;
}

/** A custom connector's definition as data (the lambdas stay in the runtime). */
export interface EvaluatedConnector {
  title: string;
  connection: {
    fields: SchemaField[];
    /** `basic_auth`, `api_key`, `custom_auth`, `oauth2`, `multi` or `none` (D-sdk *authorization*). */
    authorizationType: string;
    /** For `oauth2`: the authorization-code flow (false: client credentials). */
    authorizationCode: boolean;
  };
  actions: Record<
    string,
    { title: string; description?: string; inputFields?: SchemaField[]; outputFields?: SchemaField[] }
  >;
  triggers: Record<
    string,
    {
      title: string;
      kind: 'poll' | 'webhook';
      description?: string;
      inputFields?: SchemaField[];
      outputFields?: SchemaField[];
    }
  >;
}

export interface LambdaCall {
  /** The connector's source, and a key naming this version (the runtime may keep what it evaluated). */
  source: string;
  sourceKey: string;
  /** Whose call this is: nothing a call leaves is visible to a call of another workspace. */
  workspaceId: number;
  /**
   * What to run: `test`, `actions.<name>.execute`, `actions.<name>.input_fields`,
   * `triggers.<name>.poll`, `triggers.<name>.webhook_notification`, `methods.<name>`,
   * `pick_lists.<name>`, `connection.authorization.acquire`, `connection.authorization.refresh`...
   */
  path: string;
  args: unknown[];
  /** The connection's values (its fields and what `acquire`/`refresh` returned), in clear. */
  connection: Record<string, unknown>;
  /** Limits of this call: past them the call fails with a `ConnectorCodeError`. */
  timeoutMs: number;
  memoryBytes: number;
}

/** What the host lends a running lambda. */
export interface ConnectorHost {
  /** Send one HTTP request (absolute URL: the runtime joins `base_uri` and applies `apply`). */
  http(request: TransportRequest): Promise<TransportResponse>;
  /** A line for the job's log (`puts`), never a secret. */
  log(message: string): void;
}

export interface LambdaOutcome {
  value: unknown;
  /** Connection values changed by `acquire` or `refresh`: the host stores them sealed. */
  connection?: Record<string, unknown>;
}

/** A connector's code failed: the message names the connector, the lambda and the line. */
export class ConnectorCodeError extends Error {
  override name = 'ConnectorCodeError';
  readonly lambda: string;
  readonly line: number | null;
  constructor(message: string, lambda: string, line: number | null) {
    super(message);
    this.lambda = lambda;
    this.line = line;
  }
}
