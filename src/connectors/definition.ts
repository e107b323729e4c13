// A connector's connection as data: its fields, how it authenticates, where its requests go, and
// the call that tests it. The shared layer (http/, auth/) interprets it; a SaaS service's file in
// saas/ declares one; the Ruby runtime's adapter builds one for a custom connector.
import type { ExchangeLogLine, TransportRequest, TransportResponse, TransportSettings } from './http/transport.ts';

/** A field as the vendor's schemas write it (connection fields, action input and output fields). */
export interface SchemaField {
  name: string;
  label?: string;
  type?: 'string' | 'integer' | 'number' | 'boolean' | 'date' | 'date_time' | 'timestamp' | 'object' | 'array';
  of?: 'string' | 'integer' | 'number' | 'boolean' | 'object';
  control_type?: string;
  optional?: boolean;
  hint?: string;
  default?: string;
  pick_list?: readonly (readonly [string, string])[];
  properties?: readonly SchemaField[];
  sticky?: boolean;
}

/** A connection's field values, secret references resolved. */
export type FieldValues = Readonly<Record<string, string | number | boolean>>;

/** A URL (or another text) that may depend on the connection's fields (a subdomain, an instance). */
export type FromValues = string | ((values: FieldValues) => string);

/** What an authorization left: tokens and what the token reply or the callback added. */
export interface AuthState {
  accessToken?: string;
  refreshToken?: string;
  /** ISO time the access token stops working, when the provider said. */
  expiresAt?: string;
  tokenType?: string;
  scope?: string;
  /** Values the connector keeps from the authorization: `instance_url`, `realmId`, `cloud_id`. */
  extra: Record<string, string>;
}

export interface ConnectionState {
  values: FieldValues;
  auth: AuthState;
}

export interface BasicAuth {
  type: 'basic';
  /** The field holding the user name (`usernameSuffix` appended: Zendesk's `email/token`). */
  username: string;
  usernameSuffix?: string;
  /** The field holding the password, or a fixed one (an API key as the user name and `x`). */
  password: string | { fixed: string };
}

export interface ApiKeyAuth {
  type: 'api_key';
  /** The field holding the key. */
  field: string;
  in: 'header' | 'query';
  /** Header or query parameter name. */
  name: string;
  /** Put before the key in a header (`Bearer `, `Token token=`). */
  prefix?: string;
}

export interface BearerAuth {
  type: 'bearer';
  field: string;
}

export interface OAuth2ClientCredentials {
  type: 'oauth2_client_credentials';
  tokenUrl: FromValues;
  /** The fields holding the client id and secret. */
  clientId: string;
  clientSecret: string;
  scope?: FromValues;
  /** How the client authenticates at the token endpoint (RFC 6749 §2.3.1); default `basic`. */
  clientAuth?: 'basic' | 'body';
}

export interface OAuth2AuthorizationCode {
  type: 'oauth2_authorization_code';
  authorizationUrl: FromValues;
  tokenUrl: FromValues;
  scopes?: readonly string[] | ((values: FieldValues) => readonly string[]);
  /** Default one space (RFC 6749 §3.3); some providers join with commas. */
  scopeSeparator?: string;
  /** The query parameter the scopes go in; default `scope`. */
  scopeParam?: string;
  /** RFC 7636 with S256; default true. */
  pkce?: boolean;
  /** Default `body`: most providers take client_id and client_secret as form fields. */
  clientAuth?: 'basic' | 'body';
  /** Other query parameters of the authorization request (Google's `access_type=offline`). */
  authorizationParams?: Readonly<Record<string, string>>;
  /** Fields of the token reply kept in `AuthState.extra` (Salesforce's `instance_url`). */
  keepFromToken?: readonly string[];
  /** Query parameters of the callback kept in `AuthState.extra` (QuickBooks' `realmId`). */
  keepFromCallback?: readonly string[];
  /** Reads a token reply whose token is not at the top (Slack's user token in `authed_user`). */
  readToken?(reply: Record<string, unknown>): Partial<AuthState> | null;
  /**
   * A field that may hold a refresh token given by the administrator (an integration user's,
   * Workday's): then the connection needs no redirect, its first access token comes from it.
   */
  refreshTokenField?: string;
}

/** OAuth 1.0a with HMAC-SHA256 signatures and a realm: NetSuite's token-based authentication. */
export interface OAuth1TokenBased {
  type: 'oauth1_tba';
  /** The fields of the consumer key and secret, the token id and secret, and the realm (account id). */
  consumerKey: string;
  consumerSecret: string;
  tokenId: string;
  tokenSecret: string;
  realm: FromValues;
}

/**
 * A connector whose code applies its own authentication (a custom connector's Ruby `apply`,
 * `acquire`, `refresh`): the host keeps what it returns and lends it the OAuth 2.0 redirect.
 */
export interface CustomAuth {
  type: 'custom';
  /** The fields a connection must have to be tested (missing ones: 400 at create). */
  requiredFields(values: FieldValues): readonly string[];
  /** Set when the connection is authorized through the provider's redirect. */
  oauth?: OAuthCodeClient;
}

export type AuthDefinition =
  | { type: 'none' }
  | BasicAuth
  | ApiKeyAuth
  | BearerAuth
  | OAuth2ClientCredentials
  | OAuth2AuthorizationCode
  | OAuth1TokenBased
  | CustomAuth;

export interface AuthOption {
  title: string;
  /** Fields this way of authenticating adds to the connection's own. */
  fields: readonly SchemaField[];
  auth: AuthDefinition;
}

/** Several ways to authenticate, chosen by the connection field `auth_type` (Jira: OAuth or API token). */
export interface MultiAuth {
  type: 'multi';
  options: Readonly<Record<string, AuthOption>>;
  default: string;
}

export interface ConnectionDefinition {
  /** Fields every connection of the connector has (a subdomain, an instance URL, a region). */
  fields: readonly SchemaField[];
  auth: AuthDefinition | MultiAuth;
  /** Where relative paths go (the custom action, named actions); ends with `/`. */
  baseUrl(state: ConnectionState): string;
  /** Hosts an absolute URL of the custom action may name; default the base URL's host. */
  hosts?(state: ConnectionState): readonly string[];
  /** A cheap authenticated call that fails when the connection does not work. */
  test(session: ConnectorSession): Promise<unknown>;
  /** Runs once after an OAuth 2.0 authorization: values to keep (Jira's cloud id). */
  afterAuthorize?(session: ConnectorSession): Promise<Record<string, string>>;
  /**
   * The service's error message in an answer, or null when the answer is not an error. Called
   * for every answer: it may find errors in a 200 (Slack's `{"ok": false, "error": ...}`).
   */
  errorOf?(status: number, body: unknown): string | null;
  /** Whether an answer means the token is no good, when the service does not say it with a 401 (Marketo's 601). */
  unauthorized?(status: number, body: unknown): boolean;
  /** Send JSON bodies form-encoded, nested keys in brackets (Stripe and Twilio take forms only). */
  jsonBodyAsForm?: boolean;
  /** Headers every request carries (a version header; Snowflake's token type). */
  headers?: Readonly<Record<string, string>> | ((state: ConnectionState) => Readonly<Record<string, string>>);
}

/** One request of a connector, relative to the connection's base URL or absolute. */
export interface ConnectorRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';
  url: string;
  query?: Readonly<Record<string, string | number | boolean | readonly (string | number | boolean)[]>>;
  headers?: Readonly<Record<string, string>>;
  body?:
    | { json: unknown }
    | { form: Readonly<Record<string, string>> }
    | { text: string; contentType: string }
    | { bytes: Uint8Array; contentType: string };
  /** How to read the answer; default `json` (an empty body reads as null). */
  responseType?: 'json' | 'text' | 'bytes';
  /** Give non-2xx answers back instead of failing the step. */
  acceptErrors?: boolean;
}

export interface ConnectorResponse {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: unknown;
  /** The URL that answered (after redirects). */
  url: string;
}

/** A connection's session: its requests carry its authentication and go through the shared layer. */
export interface ConnectorSession {
  readonly connection: { readonly id: number | null; readonly name: string; readonly provider: string };
  readonly state: ConnectionState;
  readonly baseUrl: URL;
  request(request: ConnectorRequest): Promise<ConnectorResponse>;
  /**
   * One exchange as it is, within the step's deadline and the outbound rules, without the
   * connection's authentication or error handling: for code that applies its own (a custom
   * connector's Ruby, which reads every answer itself).
   */
  send(request: TransportRequest): Promise<TransportResponse>;
  /**
   * How another thread makes `send`'s exchanges the same way (the transport as data, the step's
   * limits); null when only this thread can (an outbound policy with a lookup given in code).
   */
  portable?(): PortableSend | null;
}

/** `ConnectorSession.send` as data for another thread, with what stays in this one. */
export interface PortableSend {
  settings: TransportSettings & {
    timeoutMs: number;
    maxResponseBytes: number;
    deadline: number;
    retryRateLimits: boolean;
  };
  /** The step's wait for a `Retry-After` (rejects when the job is being shut down). */
  sleep(ms: number): Promise<void>;
  log(line: ExchangeLogLine): void;
}

/** The provider side of an OAuth 2.0 authorization-code flow (the state and callback are the host's). */
export interface OAuthCodeClient {
  authorizationUrl(args: {
    clientId: string;
    redirectUri: string;
    state: string;
    codeChallenge: string | null;
    /** The verifier the challenge was made of (a custom connector's `pkce` lambda is given both). */
    codeVerifier: string | null;
    values: FieldValues;
  }): Promise<string> | string;
  /** Whether the flow sends a PKCE challenge (the verifier is kept with the state). */
  readonly pkce: boolean;
  /**
   * Whether a connection with these values connects through the redirect (a custom connector's
   * `multi` authorization whose selected option is OAuth 2.0 authorization code); absent: always.
   */
  selects?(values: FieldValues): Promise<boolean>;
  /** The app the connector names itself, when no custom OAuth profile and no connection field gives one. */
  defaultApp?(values: FieldValues): Promise<{ clientId: string; clientSecret: string } | undefined>;
  exchange(args: {
    code: string;
    codeVerifier: string | null;
    redirectUri: string;
    clientId: string;
    clientSecret: string;
    values: FieldValues;
    callback: Readonly<Record<string, string>>;
  }): Promise<AuthState>;
}
