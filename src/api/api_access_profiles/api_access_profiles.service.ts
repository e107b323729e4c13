// Access profiles (contract 03 §5): credentials of API clients for the gateway. Secrets are
// shown once (create, refresh, auth type change) and stored only as SHA-256 hashes; a JWT
// profile's HMAC secret or RSA key is sealed, since verifying needs it.
import type { ServiceContext } from '../../context.ts';
import type { ApiAuthType, Db } from '../../db/types.ts';
import { AppError, assertFound, invalid } from '../../errors.ts';
import { toStored } from '../../time.ts';
import { scopeOf, type AuthContext } from '../../auth/credentials.ts';
import { checkAuthType, checkIpList, checkVerification, issueCredentials, touchesVerification } from './credentials.ts';
import { assertKeyRoom } from './key-limit.ts';
import { projectAssetInScope } from '../projects/project-scope.ts';
import { findCollectionsByIds } from '../api_collections/api_collections.store.ts';
import { findApiClient, findPolicy } from '../api_clients/api_clients.store.ts';
import { findTopicIds } from '../event_streams/event_streams.store.ts';
import { findFolderInScope } from '../folders/folder-scope.store.ts';
import {
  findProfile,
  insertProfile,
  jsonList,
  listProfiles as listRows,
  profileToApi,
  updateProfile,
  type AccessProfileApi,
  type ProfileWithClient,
} from './api_access_profiles.store.ts';

export interface ProfileInput {
  name?: string;
  api_client_id?: number;
  api_collection_ids?: number[];
  publish_topic_ids?: number[];
  consume_topic_ids?: number[];
  auth_type?: string;
  api_policy_id?: number | null;
  ip_allow_list?: string[] | string;
  ip_deny_list?: string[] | string;
  jwt_method?: string;
  jwt_secret?: string;
  oidc_issuer?: string;
  oidc_jwks_uri?: string;
  access_profile_claim?: string;
  required_claims?: string[];
  allowed_issuers?: string[];
  allowed_audiences?: string[];
}

export async function listProfiles(
  ctx: ServiceContext,
  auth: AuthContext,
  apiClientId: number | undefined,
  page: { offset: number; perPage: number },
): Promise<AccessProfileApi[]> {
  const rows = await listRows(
    ctx.db,
    auth.environmentId,
    { ...(apiClientId !== undefined ? { apiClientId } : {}), scope: scopeOf(auth) },
    page,
  );
  return rows.map((row) => profileToApi(row));
}

export async function createProfile(
  ctx: ServiceContext,
  auth: AuthContext,
  input: ProfileInput,
): Promise<AccessProfileApi> {
  const errors: Record<string, string[]> = {};
  const name = input.name?.trim() ?? '';
  if (name === '') errors.name = ["can't be blank"];
  if (input.api_client_id === undefined) errors.api_client_id = ['is required'];
  // A profile opens at least one API collection or one event topic (13 §1: topics are granted here too).
  const grantsTopics = (input.publish_topic_ids?.length ?? 0) + (input.consume_topic_ids?.length ?? 0) > 0;
  if ((!input.api_collection_ids || input.api_collection_ids.length === 0) && !grantsTopics)
    errors.api_collection_ids = ['must list at least one collection'];
  const authType = checkAuthType(input.auth_type, errors, true) as ApiAuthType;
  const verification = authType === undefined ? undefined : checkVerification(ctx, authType, input, errors);
  const ipAllow = checkIpList(input.ip_allow_list, 'ip_allow_list', errors);
  const ipDeny = checkIpList(input.ip_deny_list, 'ip_deny_list', errors);
  if (Object.keys(errors).length > 0) throw invalid(errors);

  return ctx.db.transaction().execute(async (trx) => {
    const client = await findApiClient(trx, auth.environmentId, input.api_client_id as number);
    if (!client || !(await projectAssetInScope(trx, auth, client.project_id)))
      throw invalid({ api_client_id: ['does not name an API client of this environment'] });
    const collectionIds = await checkCollections(trx, auth, input.api_collection_ids ?? []);
    const publishTopicIds = await checkTopics(trx, auth, input.publish_topic_ids ?? [], 'publish_topic_ids');
    const consumeTopicIds = await checkTopics(trx, auth, input.consume_topic_ids ?? [], 'consume_topic_ids');
    if (input.api_policy_id != null && !(await findPolicy(trx, auth.workspaceId, input.api_policy_id)))
      throw invalid({ api_policy_id: ['does not exist'] });
    await assertKeyRoom(trx, client.id);
    const issued = issueCredentials(authType, null);
    const now = toStored(ctx.clock.now());
    const row = await insertProfile(trx, {
      api_client_id: client.id,
      name,
      auth_type: authType,
      active: 1,
      api_collection_ids: JSON.stringify(collectionIds),
      publish_topic_ids: JSON.stringify(publishTopicIds),
      consume_topic_ids: JSON.stringify(consumeTopicIds),
      api_policy_id: input.api_policy_id ?? null,
      ip_allow_list: JSON.stringify(ipAllow ?? []),
      ip_deny_list: JSON.stringify(ipDeny ?? []),
      ...issued.columns,
      secret_generation: 1,
      ...(verification as NonNullable<typeof verification>),
      access_profile_claim: input.access_profile_claim?.trim() || null,
      required_claims: JSON.stringify(input.required_claims ?? []),
      allowed_issuers: JSON.stringify(input.allowed_issuers ?? []),
      allowed_audiences: JSON.stringify(input.allowed_audiences ?? []),
      active_since: now,
      created_at: now,
      updated_at: now,
    });
    return profileToApi(row, issued.shown);
  });
}

export async function updateProfileById(
  ctx: ServiceContext,
  auth: AuthContext,
  id: number,
  input: ProfileInput,
): Promise<AccessProfileApi> {
  const errors: Record<string, string[]> = {};
  const name = input.name?.trim();
  if (name === '') errors.name = ["can't be blank"];
  if (input.api_client_id !== undefined) errors.api_client_id = ['cannot be changed'];
  const newAuthType =
    input.auth_type === undefined ? undefined : (checkAuthType(input.auth_type, errors, true) as ApiAuthType);
  const ipAllow = checkIpList(input.ip_allow_list, 'ip_allow_list', errors);
  const ipDeny = checkIpList(input.ip_deny_list, 'ip_deny_list', errors);
  if (Object.keys(errors).length > 0) throw invalid(errors);

  const result = await ctx.db.transaction().execute(async (trx) => {
    const current = await visibleProfile(trx, auth, id);
    const authType = newAuthType ?? current.auth_type;
    const jwtErrors: Record<string, string[]> = {};
    const verification =
      authType !== current.auth_type || touchesVerification(input)
        ? checkVerification(ctx, authType, input, jwtErrors, current)
        : undefined;
    if (Object.keys(jwtErrors).length > 0) throw invalid(jwtErrors);
    const collectionIds = input.api_collection_ids
      ? await checkCollections(trx, auth, input.api_collection_ids)
      : undefined;
    const publishTopicIds = input.publish_topic_ids
      ? await checkTopics(trx, auth, input.publish_topic_ids, 'publish_topic_ids')
      : undefined;
    const consumeTopicIds = input.consume_topic_ids
      ? await checkTopics(trx, auth, input.consume_topic_ids, 'consume_topic_ids')
      : undefined;
    const grants =
      (collectionIds ?? jsonList<number>(current.api_collection_ids)).length +
      (publishTopicIds ?? jsonList<number>(current.publish_topic_ids)).length +
      (consumeTopicIds ?? jsonList<number>(current.consume_topic_ids)).length;
    if (grants === 0) throw invalid({ api_collection_ids: ['must list at least one collection'] });
    if (input.api_policy_id != null && !(await findPolicy(trx, auth.workspaceId, input.api_policy_id)))
      throw invalid({ api_policy_id: ['does not exist'] });
    const changesType = authType !== current.auth_type;
    const issued = changesType ? issueCredentials(authType, null) : undefined;
    await updateProfile(trx, id, {
      ...(name !== undefined ? { name } : {}),
      ...(collectionIds ? { api_collection_ids: JSON.stringify(collectionIds) } : {}),
      ...(publishTopicIds ? { publish_topic_ids: JSON.stringify(publishTopicIds) } : {}),
      ...(consumeTopicIds ? { consume_topic_ids: JSON.stringify(consumeTopicIds) } : {}),
      ...(input.api_policy_id !== undefined ? { api_policy_id: input.api_policy_id } : {}),
      ...(ipAllow !== undefined ? { ip_allow_list: JSON.stringify(ipAllow) } : {}),
      ...(ipDeny !== undefined ? { ip_deny_list: JSON.stringify(ipDeny) } : {}),
      ...(verification ?? {}),
      ...(input.access_profile_claim !== undefined
        ? { access_profile_claim: input.access_profile_claim.trim() || null }
        : {}),
      ...(input.required_claims !== undefined ? { required_claims: JSON.stringify(input.required_claims) } : {}),
      ...(input.allowed_issuers !== undefined ? { allowed_issuers: JSON.stringify(input.allowed_issuers) } : {}),
      ...(input.allowed_audiences !== undefined ? { allowed_audiences: JSON.stringify(input.allowed_audiences) } : {}),
      ...(issued ? { ...issued.columns, auth_type: authType, secret_generation: current.secret_generation + 1 } : {}),
      updated_at: toStored(ctx.clock.now()),
    });
    return profileToApi(assertFound(await findProfile(trx, auth.environmentId, id)), issued?.shown);
  });
  ctx.notifier.publish('api_access_profile.changed', { profileId: id });
  return result;
}

export async function setProfileActive(
  ctx: ServiceContext,
  auth: AuthContext,
  id: number,
  active: boolean,
): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const current = await visibleProfile(trx, auth, id);
    await updateProfile(trx, id, activeChange(current, active, toStored(ctx.clock.now())));
  });
  ctx.notifier.publish('api_access_profile.changed', { profileId: id });
}

/** The columns of an enable or disable: `active_since` moves only when an inactive key becomes active. */
export function activeChange(current: { active: number }, active: boolean, now: string) {
  return {
    active: active ? (1 as const) : (0 as const),
    ...(active && current.active !== 1 ? { active_since: now } : {}),
    updated_at: now,
  };
}

/** New secret; the old one, and every token issued with it, stop working at once. */
export async function refreshSecret(ctx: ServiceContext, auth: AuthContext, id: number): Promise<AccessProfileApi> {
  const result = await ctx.db.transaction().execute(async (trx) => {
    const current = await visibleProfile(trx, auth, id);
    if (current.auth_type === 'jwt' || current.auth_type === 'oidc') throw new AppError('cannot_refresh_secret');
    const issued = issueCredentials(current.auth_type, current.oauth_client_id);
    await updateProfile(trx, id, {
      ...issued.columns,
      secret_generation: current.secret_generation + 1,
      updated_at: toStored(ctx.clock.now()),
    });
    return profileToApi(assertFound(await findProfile(trx, auth.environmentId, id)), issued.shown);
  });
  ctx.notifier.publish('api_access_profile.changed', { profileId: id });
  return result;
}

async function visibleProfile(db: Db, auth: AuthContext, id: number): Promise<ProfileWithClient> {
  const profile = assertFound(await findProfile(db, auth.environmentId, id));
  if (!(await projectAssetInScope(db, auth, profile.project_id))) throw new AppError('not_found');
  return profile;
}

/** Collections of the environment in the caller's project scope; the others read as unknown (400). */
export async function checkCollections(db: Db, auth: AuthContext, ids: number[]): Promise<number[]> {
  const unique = [...new Set(ids)].sort((a, b) => a - b);
  // A scoped caller may grant only collections of its own projects; the others read as unknown.
  const found = new Set<number>();
  for (const collection of await findCollectionsByIds(db, auth.environmentId, unique)) {
    if (await projectAssetInScope(db, auth, collection.project_id)) found.add(collection.id);
  }
  const unknown = unique.filter((id) => !found.has(id));
  if (unknown.length > 0)
    throw invalid({ api_collection_ids: [`has unknown collection ids: ${unknown.slice(0, 10).join(', ')}`] });
  return unique;
}

/** Live event topics of the environment, in the caller's project scope. */
async function checkTopics(db: Db, auth: AuthContext, ids: number[], field: string): Promise<number[]> {
  const unique = [...new Set(ids)].sort((a, b) => a - b);
  const found = await findTopicIds(db, auth.environmentId, unique);
  const visible = new Set<number>();
  for (const topic of found) {
    if (auth.allFolders || (await findFolderInScope(db, auth.environmentId, auth, topic.folder_id)) !== undefined)
      visible.add(topic.id);
  }
  const unknown = unique.filter((id) => !visible.has(id));
  if (unknown.length > 0) throw invalid({ [field]: [`has unknown topic ids: ${unknown.slice(0, 10).join(', ')}`] });
  return unique;
}
