// API clients v2 and their API keys (contract 03 §7). One set of data with v1: a v2 client is a
// row of api_clients (is_legacy 0), an API key a row of api_access_profiles. A v2 client holds its
// auth type, collections and JWT/OIDC settings, and copies them onto each of its keys, so the
// gateway and the v1 view read a key exactly as they read a v1 access profile.
import type { ServiceContext } from '../../context.ts';
import type { ApiAccessProfileRow, ApiAuthType, ApiClientRow, Db } from '../../db/types.ts';
import { AppError, invalid } from '../../errors.ts';
import { toApiTimestamp, toStored } from '../../time.ts';
import { projectInScope, scopeOf, type AuthContext } from '../../auth/credentials.ts';
import { projectAssetInScope } from '../projects/project-scope.ts';
import { findProject } from '../projects/projects.store.ts';
import {
  deleteProfile,
  findClientProfile,
  insertProfile,
  jsonList,
  keyToApi,
  listClientProfiles,
  profilesOfClients,
  updateClientProfiles,
  updateProfile,
  type ApiKeyApi,
} from '../api_access_profiles/api_access_profiles.store.ts';
import { activeChange, checkCollections } from '../api_access_profiles/api_access_profiles.service.ts';
import {
  checkAuthType,
  checkIpList,
  checkVerification,
  issueCredentials,
  touchesVerification,
  type FieldErrors,
  type VerificationColumns,
} from '../api_access_profiles/credentials.ts';
import { assertKeyRoom } from '../api_access_profiles/key-limit.ts';
import { clientProjectId } from './api_clients.service.ts';
import {
  collectionNames,
  deleteApiClient,
  findApiClient,
  findPolicy,
  insertApiClient,
  pageApiClients,
  policyNames,
  updateApiClient,
} from './api_clients.store.ts';

export interface ApiClientV2Input {
  name?: string;
  description?: string | null;
  api_collection_ids?: number[];
  auth_type?: string;
  project_id?: number;
  api_portal_id?: number | null;
  email?: string | null;
  api_policy_id?: number | null;
  jwt_method?: string;
  jwt_secret?: string;
  oidc_issuer?: string;
  oidc_jwks_uri?: string;
  access_profile_claim?: string | null;
  required_claims?: string[];
  allowed_issuers?: string[];
  allowed_audiences?: string[];
  mtls_enabled?: boolean;
  validation_formula?: string | null;
  cert_bundle_ids?: number[];
}

export interface ApiClientV2Api {
  id: number;
  name: string;
  description: string | null;
  project_id: number | null;
  active_api_keys_count: number;
  total_api_keys_count: number;
  created_at: string;
  updated_at: string;
  logo: null;
  logo_2x: null;
  is_legacy: boolean;
  email: string | null;
  auth_type: ApiAuthType;
  mtls_enabled: boolean;
  validation_formula: string | null;
  cert_bundle_ids: number[];
  api_policies: Array<{ id: number; name: string }>;
  api_collections: Array<{ id: number; name: string }>;
  api_portal_id: number | null;
  jwt_method?: string | null;
  oidc_issuer?: string | null;
  oidc_jwks_uri?: string | null;
  access_profile_claim?: string | null;
  required_claims?: string[];
  allowed_issuers?: string[];
  allowed_audiences?: string[];
  api_keys?: ApiKeyApi[];
}

type Page = { page: number; perPage: number; offset: number };

/** What a client's keys are given: its own settings (v2), or for a v1 client those of its newest profile. */
interface ClientSettings {
  authType: ApiAuthType;
  collectionIds: number[];
  verification: VerificationColumns;
  claim: string | null;
  requiredClaims: string[];
  allowedIssuers: string[];
  allowedAudiences: string[];
}

function settingsOf(client: ApiClientRow, keys: readonly ApiAccessProfileRow[]): ClientSettings {
  if (client.auth_type !== null) {
    return {
      authType: client.auth_type,
      collectionIds: jsonList<number>(client.api_collection_ids),
      verification: {
        jwt_method: client.jwt_method,
        jwt_secret_sealed: client.jwt_secret_sealed,
        oidc_issuer: client.oidc_issuer,
        oidc_jwks_uri: client.oidc_jwks_uri,
      },
      claim: client.access_profile_claim,
      requiredClaims: jsonList<string>(client.required_claims),
      allowedIssuers: jsonList<string>(client.allowed_issuers),
      allowedAudiences: jsonList<string>(client.allowed_audiences),
    };
  }
  const newest = keys.at(-1);
  const collections = new Set<number>();
  for (const key of keys) for (const id of jsonList<number>(key.api_collection_ids)) collections.add(id);
  return {
    authType: newest?.auth_type ?? 'token',
    collectionIds: [...collections].sort((a, b) => a - b),
    verification: {
      jwt_method: newest?.jwt_method ?? null,
      jwt_secret_sealed: newest?.jwt_secret_sealed ?? null,
      oidc_issuer: newest?.oidc_issuer ?? null,
      oidc_jwks_uri: newest?.oidc_jwks_uri ?? null,
    },
    claim: newest?.access_profile_claim ?? null,
    requiredClaims: jsonList<string>(newest?.required_claims ?? null),
    allowedIssuers: jsonList<string>(newest?.allowed_issuers ?? null),
    allowedAudiences: jsonList<string>(newest?.allowed_audiences ?? null),
  };
}

async function clientsToApi(
  db: Db,
  clients: readonly ApiClientRow[],
  options: { withKeys?: boolean } = {},
): Promise<ApiClientV2Api[]> {
  const keysByClient = await profilesOfClients(
    db,
    clients.map((c) => c.id),
  );
  const settings = new Map(clients.map((c) => [c.id, settingsOf(c, keysByClient.get(c.id) ?? [])]));
  const collections = await collectionNames(
    db,
    [...settings.values()].flatMap((s) => s.collectionIds),
  );
  const policies = await policyNames(
    db,
    clients.flatMap((c) => (c.api_policy_id === null ? [] : [c.api_policy_id])),
  );
  return clients.map((client) => {
    const keys = keysByClient.get(client.id) ?? [];
    const s = settings.get(client.id) as ClientSettings;
    const out: ApiClientV2Api = {
      id: client.id,
      name: client.name,
      description: client.description,
      project_id: client.project_id,
      active_api_keys_count: keys.filter((k) => k.active === 1).length,
      total_api_keys_count: keys.length,
      created_at: toApiTimestamp(client.created_at),
      updated_at: toApiTimestamp(client.updated_at),
      logo: null,
      logo_2x: null,
      is_legacy: client.is_legacy === 1,
      email: client.email,
      auth_type: s.authType,
      mtls_enabled: client.mtls_enabled === 1,
      validation_formula: client.validation_formula,
      cert_bundle_ids: jsonList<number>(client.cert_bundle_ids),
      api_policies:
        client.api_policy_id !== null && policies.has(client.api_policy_id)
          ? [{ id: client.api_policy_id, name: policies.get(client.api_policy_id) as string }]
          : [],
      // A deleted collection stays granted by id until the client is updated; it is not shown.
      api_collections: s.collectionIds
        .filter((id) => collections.has(id))
        .map((id) => ({ id, name: collections.get(id) as string })),
      api_portal_id: client.api_portal_id,
    };
    if (s.authType === 'jwt' || s.authType === 'oidc') {
      if (s.authType === 'jwt') out.jwt_method = s.verification.jwt_method;
      out.oidc_issuer = s.verification.oidc_issuer;
      out.oidc_jwks_uri = s.verification.oidc_jwks_uri;
      out.access_profile_claim = s.claim;
      out.required_claims = s.requiredClaims;
      out.allowed_issuers = s.allowedIssuers;
      out.allowed_audiences = s.allowedAudiences;
    }
    if (options.withKeys) out.api_keys = keys.map((k) => keyToApi(k));
    return out;
  });
}

async function clientToApi(
  db: Db,
  client: ApiClientRow,
  options: { withKeys?: boolean } = {},
): Promise<ApiClientV2Api> {
  return (await clientsToApi(db, [client], options))[0] as ApiClientV2Api;
}

/** A client of the caller's environment and project scope, or 404. */
async function visibleClient(db: Db, auth: AuthContext, id: number): Promise<ApiClientRow> {
  const client = await findApiClient(db, auth.environmentId, id);
  if (!client || !(await projectAssetInScope(db, auth, client.project_id))) throw new AppError('not_found');
  return client;
}

export async function listApiClientsV2(
  ctx: ServiceContext,
  auth: AuthContext,
  filter: { projectId?: number; certBundleIds?: number[] },
  page: Page,
) {
  const { rows, count } = await pageApiClients(ctx.db, auth.environmentId, { ...filter, scope: scopeOf(auth) }, page);
  return { data: await clientsToApi(ctx.db, rows), count, page: page.page, per_page: page.perPage };
}

export async function getApiClientV2(ctx: ServiceContext, auth: AuthContext, id: number): Promise<ApiClientV2Api> {
  return clientToApi(ctx.db, await visibleClient(ctx.db, auth, id), { withKeys: true });
}

function checkClientFields(input: ApiClientV2Input, errors: FieldErrors, creating: boolean): void {
  if (input.name !== undefined && input.name.trim() === '') errors.name = ["can't be blank"];
  if (creating && (!input.api_collection_ids || input.api_collection_ids.length === 0))
    errors.api_collection_ids = ['must list at least one collection'];
  if (!creating && input.api_collection_ids !== undefined && input.api_collection_ids.length === 0)
    errors.api_collection_ids = ['must list at least one collection'];
  if (input.email != null && input.email !== '' && !/^[^\s@]+@[^\s@]+$/.test(input.email))
    errors.email = ['is not an e-mail address'];
  if (creating && input.api_portal_id != null && !input.email) errors.email = ['is required with api_portal_id'];
}

export async function createApiClientV2(
  ctx: ServiceContext,
  auth: AuthContext,
  input: ApiClientV2Input,
): Promise<ApiClientV2Api> {
  const errors: FieldErrors = {};
  checkClientFields(input, errors, true);
  const authType = checkAuthType(input.auth_type, errors, true);
  const verification = authType === undefined ? undefined : checkVerification(ctx, authType, input, errors);
  if (Object.keys(errors).length > 0) throw invalid(errors);
  const row = await ctx.db.transaction().execute(async (trx) => {
    const projectId = await clientProjectId(trx, auth, input.project_id);
    const collectionIds = await checkCollections(trx, auth, input.api_collection_ids ?? []);
    if (input.api_policy_id != null && !(await findPolicy(trx, auth.workspaceId, input.api_policy_id)))
      throw invalid({ api_policy_id: ['does not exist'] });
    const now = toStored(ctx.clock.now());
    return insertApiClient(trx, {
      workspace_id: auth.workspaceId,
      environment_id: auth.environmentId,
      project_id: projectId,
      name: (input.name as string).trim(),
      description: input.description ?? null,
      active: 1,
      api_policy_id: input.api_policy_id ?? null,
      is_legacy: 0,
      auth_type: authType as ApiAuthType,
      email: input.email || null,
      api_portal_id: input.api_portal_id ?? null,
      api_collection_ids: JSON.stringify(collectionIds),
      ...(verification as VerificationColumns),
      access_profile_claim: input.access_profile_claim?.trim() || null,
      required_claims: JSON.stringify(input.required_claims ?? []),
      allowed_issuers: JSON.stringify(input.allowed_issuers ?? []),
      allowed_audiences: JSON.stringify(input.allowed_audiences ?? []),
      mtls_enabled: input.mtls_enabled ? 1 : 0,
      validation_formula: input.validation_formula ?? null,
      cert_bundle_ids: JSON.stringify([...new Set(input.cert_bundle_ids ?? [])]),
      created_at: now,
      updated_at: now,
    });
  });
  return clientToApi(ctx.db, row);
}

export async function updateApiClientV2(
  ctx: ServiceContext,
  auth: AuthContext,
  id: number,
  input: ApiClientV2Input,
): Promise<ApiClientV2Api> {
  const errors: FieldErrors = {};
  checkClientFields(input, errors, false);
  const newAuthType = checkAuthType(input.auth_type, errors, false);
  if (Object.keys(errors).length > 0) throw invalid(errors);
  const row = await ctx.db.transaction().execute(async (trx) => {
    const client = await visibleClient(trx, auth, id);
    const keys = await listClientProfiles(trx, client.id);
    const current = settingsOf(client, keys);
    const authType = newAuthType ?? current.authType;
    // Keys keep their tokens across token, jwt and oidc (the token is the access profile key);
    // oauth2 keys hold other credentials, so a change to or from oauth2 would strand them.
    // The settings every key of the client shares: written to the client and copied onto its keys
    // only when the update names one of them (a v1 client's profiles may each have their own).
    const touchesShared =
      newAuthType !== undefined ||
      input.api_collection_ids !== undefined ||
      touchesVerification(input) ||
      input.access_profile_claim !== undefined ||
      input.required_claims !== undefined ||
      input.allowed_issuers !== undefined ||
      input.allowed_audiences !== undefined;
    const stranded = keys.filter((k) => (k.auth_type === 'oauth2') !== (authType === 'oauth2'));
    if (touchesShared && stranded.length > 0) {
      throw invalid({
        auth_type: [
          `is ${authType} for the client, but it has API keys of type ${stranded[0]?.auth_type}: oauth2 keys and others hold different credentials, so they cannot share these settings`,
        ],
      });
    }
    const verificationErrors: FieldErrors = {};
    const verification =
      authType !== current.authType || touchesVerification(input)
        ? checkVerification(ctx, authType, input, verificationErrors, {
            ...current.verification,
            auth_type: current.authType,
          })
        : current.verification;
    if (Object.keys(verificationErrors).length > 0) throw invalid(verificationErrors);
    if (input.api_portal_id != null && !(input.email ?? client.email))
      throw invalid({ email: ['is required with api_portal_id'] });
    let projectId = client.project_id;
    if (input.project_id !== undefined) {
      const project = await findProject(trx, auth.environmentId, input.project_id);
      if (!project || !projectInScope(auth, project.folder_id))
        throw invalid({ project_id: ['does not name a project of this environment in your scope'] });
      projectId = project.id;
    }
    const collectionIds = input.api_collection_ids
      ? await checkCollections(trx, auth, input.api_collection_ids)
      : current.collectionIds;
    if (input.api_policy_id != null && !(await findPolicy(trx, auth.workspaceId, input.api_policy_id)))
      throw invalid({ api_policy_id: ['does not exist'] });
    const now = toStored(ctx.clock.now());
    const shared = {
      auth_type: authType,
      api_collection_ids: JSON.stringify(collectionIds),
      ...(verification as VerificationColumns),
      access_profile_claim:
        input.access_profile_claim !== undefined ? input.access_profile_claim?.trim() || null : current.claim,
      required_claims: JSON.stringify(input.required_claims ?? current.requiredClaims),
      allowed_issuers: JSON.stringify(input.allowed_issuers ?? current.allowedIssuers),
      allowed_audiences: JSON.stringify(input.allowed_audiences ?? current.allowedAudiences),
    };
    await updateApiClient(trx, client.id, {
      ...(touchesShared ? shared : {}),
      ...(input.name !== undefined ? { name: input.name.trim() } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      project_id: projectId,
      ...(input.email !== undefined ? { email: input.email || null } : {}),
      ...(input.api_portal_id !== undefined ? { api_portal_id: input.api_portal_id } : {}),
      ...(input.api_policy_id !== undefined ? { api_policy_id: input.api_policy_id } : {}),
      ...(input.mtls_enabled !== undefined ? { mtls_enabled: input.mtls_enabled ? (1 as const) : (0 as const) } : {}),
      ...(input.validation_formula !== undefined ? { validation_formula: input.validation_formula } : {}),
      ...(input.cert_bundle_ids !== undefined
        ? { cert_bundle_ids: JSON.stringify([...new Set(input.cert_bundle_ids)]) }
        : {}),
      updated_at: now,
    });
    if (touchesShared) await updateClientProfiles(trx, client.id, { ...shared, updated_at: now });
    return visibleClient(trx, auth, client.id);
  });
  ctx.notifier.publish('api_client.changed', { clientId: id });
  return clientToApi(ctx.db, row);
}

export async function deleteApiClientV2(ctx: ServiceContext, auth: AuthContext, id: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    await visibleClient(trx, auth, id);
    await deleteApiClient(trx, id);
  });
  ctx.notifier.publish('api_client.changed', { clientId: id });
}

// API keys

export async function listApiKeys(ctx: ServiceContext, auth: AuthContext, clientId: number, page: Page) {
  const client = await visibleClient(ctx.db, auth, clientId);
  const all = await listClientProfiles(ctx.db, client.id);
  return {
    data: all.slice(page.offset, page.offset + page.perPage).map((k) => keyToApi(k)),
    count: all.length,
    page: page.page,
    per_page: page.perPage,
  };
}

export interface ApiKeyInput {
  name?: string;
  active?: boolean;
  ip_allow_list?: string[] | string;
  ip_deny_list?: string[] | string;
}

function checkKeyFields(input: ApiKeyInput, errors: FieldErrors) {
  if (input.name !== undefined && input.name.trim() === '') errors.name = ["can't be blank"];
  return {
    ipAllow: checkIpList(input.ip_allow_list, 'ip_allow_list', errors),
    ipDeny: checkIpList(input.ip_deny_list, 'ip_deny_list', errors),
  };
}

export async function createApiKey(
  ctx: ServiceContext,
  auth: AuthContext,
  clientId: number,
  input: ApiKeyInput,
): Promise<ApiKeyApi> {
  const errors: FieldErrors = {};
  const { ipAllow, ipDeny } = checkKeyFields(input, errors);
  if (Object.keys(errors).length > 0) throw invalid(errors);
  return ctx.db.transaction().execute(async (trx) => {
    const client = await visibleClient(trx, auth, clientId);
    await assertKeyRoom(trx, client.id);
    const s = settingsOf(client, await listClientProfiles(trx, client.id));
    if (s.collectionIds.length === 0) throw new AppError('api_client_grants_nothing');
    const issued = issueCredentials(s.authType, null);
    const now = toStored(ctx.clock.now());
    const row = await insertProfile(trx, {
      api_client_id: client.id,
      name: (input.name as string).trim(),
      auth_type: s.authType,
      active: input.active === false ? 0 : 1,
      active_since: now,
      api_collection_ids: JSON.stringify(s.collectionIds),
      api_policy_id: null,
      ip_allow_list: JSON.stringify(ipAllow ?? []),
      ip_deny_list: JSON.stringify(ipDeny ?? []),
      ...issued.columns,
      secret_generation: 1,
      ...s.verification,
      access_profile_claim: s.claim,
      required_claims: JSON.stringify(s.requiredClaims),
      allowed_issuers: JSON.stringify(s.allowedIssuers),
      allowed_audiences: JSON.stringify(s.allowedAudiences),
      created_at: now,
      updated_at: now,
    });
    return keyToApi(row, issued.shown);
  });
}

async function visibleKey(db: Db, auth: AuthContext, clientId: number, keyId: number): Promise<ApiAccessProfileRow> {
  const client = await visibleClient(db, auth, clientId);
  const key = await findClientProfile(db, client.id, keyId);
  if (!key) throw new AppError('not_found');
  return key;
}

export async function updateApiKey(
  ctx: ServiceContext,
  auth: AuthContext,
  clientId: number,
  keyId: number,
  input: ApiKeyInput,
): Promise<ApiKeyApi> {
  const errors: FieldErrors = {};
  const { ipAllow, ipDeny } = checkKeyFields(input, errors);
  if (Object.keys(errors).length > 0) throw invalid(errors);
  const row = await ctx.db.transaction().execute(async (trx) => {
    const key = await visibleKey(trx, auth, clientId, keyId);
    const now = toStored(ctx.clock.now());
    await updateProfile(trx, key.id, {
      ...(input.name !== undefined ? { name: input.name.trim() } : {}),
      ...(ipAllow !== undefined ? { ip_allow_list: JSON.stringify(ipAllow) } : {}),
      ...(ipDeny !== undefined ? { ip_deny_list: JSON.stringify(ipDeny) } : {}),
      ...(input.active !== undefined ? activeChange(key, input.active, now) : {}),
      updated_at: now,
    });
    return visibleKey(trx, auth, clientId, keyId);
  });
  ctx.notifier.publish('api_access_profile.changed', { profileId: keyId });
  return keyToApi(row);
}

export async function setApiKeyActive(
  ctx: ServiceContext,
  auth: AuthContext,
  clientId: number,
  keyId: number,
  active: boolean,
): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const key = await visibleKey(trx, auth, clientId, keyId);
    await updateProfile(trx, key.id, activeChange(key, active, toStored(ctx.clock.now())));
  });
  ctx.notifier.publish('api_access_profile.changed', { profileId: keyId });
}

/** A new token (or OAuth secret) for the key; the old one, and tokens issued with it, stop working at once. */
export async function refreshApiKey(
  ctx: ServiceContext,
  auth: AuthContext,
  clientId: number,
  keyId: number,
): Promise<ApiKeyApi> {
  const row = await ctx.db.transaction().execute(async (trx) => {
    const key = await visibleKey(trx, auth, clientId, keyId);
    const issued = issueCredentials(key.auth_type, key.oauth_client_id);
    await updateProfile(trx, key.id, {
      ...issued.columns,
      secret_generation: key.secret_generation + 1,
      updated_at: toStored(ctx.clock.now()),
    });
    return { row: await visibleKey(trx, auth, clientId, keyId), shown: issued.shown };
  });
  ctx.notifier.publish('api_access_profile.changed', { profileId: keyId });
  return keyToApi(row.row, row.shown);
}

export async function deleteApiKey(
  ctx: ServiceContext,
  auth: AuthContext,
  clientId: number,
  keyId: number,
): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const key = await visibleKey(trx, auth, clientId, keyId);
    await deleteProfile(trx, key.id);
  });
  ctx.notifier.publish('api_access_profile.changed', { profileId: keyId });
}
