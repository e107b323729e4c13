// What the connector tests need of each service's stand-in: the stand-in itself, the connection's
// fields, whether it connects through the OAuth 2.0 redirect, and one custom action call.
import type { StandIn, StandInSpec } from './stand-in.ts';

export interface ServiceFixture {
  provider: string;
  spec: StandInSpec;
  /** The connection's fields (the OAuth app's client id and secret are added by the test when it needs them). */
  input: Record<string, string>;
  /** Connected through the provider's redirect (Connect), not by a test of its fields. */
  oauth: boolean;
  /**
   * One `__adhoc_http_action` step input, and what the step's output must hold: the fields of a
   * JSON object answer, or `body` for an array.
   */
  adhoc: {
    input: Record<string, unknown>;
    check(output: unknown, standIn: StandIn): void;
  };
}

export const unauthorizedJson = (message: string, status = 401) => ({ status, json: { message } });
