// What the event streams tests (src/api/topics/) do again and again, through HTTP: make a topic,
// publish, batch publish, consume, read a whole topic as a client pages it, make an API access
// profile with topic grants and take its OAuth token, and check the contract's error shape.
import assert from 'node:assert/strict';
import type { Reply, TestApp } from './helpers.ts';

export type Message = { message_id: string; payload: Record<string, unknown>; time: string };

type CallExtras = { token?: string | null; headers?: Record<string, string> };

export interface AccessProfile {
  id: number;
  oauth_client_id?: string;
  oauth_client_secret?: string;
  secret?: string;
  publish_topic_ids: number[];
  consume_topic_ids: number[];
}

export function eventStreams(t: () => TestApp) {
  const topic = async (name: string, extra: Record<string, unknown> = {}, token?: string): Promise<number> => {
    const res = await t().call('POST', '/api/event_streams/topics', {
      body: { name, ...extra },
      ...(token ? { token } : {}),
    });
    assert.equal(res.status, 200, res.text);
    return res.body.data.id;
  };
  const publish = (id: number | string, body: unknown, options: CallExtras = {}) =>
    t().call('POST', `/api/v1/topics/${id}/publish`, { body, ...options });
  const batch = (id: number | string, body: unknown, options: CallExtras = {}) =>
    t().call('POST', `/api/v1/batch/topics/${id}/publish`, { body, ...options });
  const consume = (id: number | string, body: unknown = {}, options: CallExtras = {}) =>
    t().call('POST', `/api/v1/topics/${id}/consume`, { body, ...options });

  /** Every message of a topic, paging with after_message_id as a client does. */
  const readAll = async (id: number, token?: string): Promise<Message[]> => {
    const out: Message[] = [];
    let cursor: string | undefined;
    for (;;) {
      const res = await consume(
        id,
        { ...(cursor ? { after_message_id: cursor } : {}), batch_size: 50 },
        token ? { token } : {},
      );
      assert.equal(res.status, 200, res.text);
      out.push(...res.body.messages);
      if (res.body.messages.length < 50) return out;
      cursor = res.body.messages.at(-1).message_id;
    }
  };

  /** An API access profile of the API client `apiClientId` granting these topics. */
  const profile = async (
    apiClientId: number,
    grants: { publish?: number[]; consume?: number[]; collections?: number[] },
    authType: 'oauth2' | 'token' = 'oauth2',
  ): Promise<AccessProfile> => {
    const res = await t().call('POST', '/api/api_access_profiles', {
      body: {
        name: `p${Math.random()}`,
        api_client_id: apiClientId,
        auth_type: authType,
        ...(grants.collections ? { api_collection_ids: grants.collections } : {}),
        publish_topic_ids: grants.publish ?? [],
        consume_topic_ids: grants.consume ?? [],
      },
    });
    assert.equal(res.status, 200, res.text);
    return res.body as AccessProfile;
  };

  /** The access token of an OAuth 2.0 profile (client credentials at POST /oauth2/token). */
  const accessToken = async (p: { oauth_client_id?: string; oauth_client_secret?: string }): Promise<string> => {
    const res = await t().app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${p.oauth_client_id}:${p.oauth_client_secret}`).toString('base64')}`,
      },
      payload: 'grant_type=client_credentials',
    });
    assert.equal(res.statusCode, 200, res.body);
    return JSON.parse(res.body).access_token;
  };

  return { topic, publish, batch, consume, readAll, profile, accessToken };
}

/** A reply in the contract's error shape (`{"message": …}`) with this status and, when given, this message. */
export function assertError(res: Reply, status: number, message?: RegExp | string): void {
  assert.equal(res.status, status, res.text);
  assert.equal(typeof res.body?.message, 'string', `contract error shape: ${res.text}`);
  if (typeof message === 'string') assert.equal(res.body.message, message);
  else if (message) assert.match(res.body.message, message);
}
