// Custom OAuth profiles (contract 05 §1): list, get, create, update, delete. Profiles belong to
// the caller's environment; client_secret and token are sealed with the secret box.
import type { ServiceContext } from '../../context.ts';
import { AppError, assertFound, invalid, type FieldErrors, uniqueOr422 } from '../../errors.ts';
import { toStored } from '../../time.ts';
import { providerProblem } from '../connections/providers.ts';
import {
  deleteProfile,
  findProfile,
  findProfileSecrets,
  insertProfile,
  listProfiles as listProfileRows,
  profileToApi,
  updateProfile as updateProfileRow,
  type CustomOauthProfileApi,
  type ProfileScope,
} from './custom_oauth_profiles.store.ts';

export interface ProfileInput {
  name?: string;
  provider?: string;
  data?: { client_id?: string; client_secret?: string; token?: string | null };
}

const MAX_NAME = 255;
const MAX_CLIENT_ID = 1000;
const MAX_SECRET = 10_000;

export async function listProfiles(
  ctx: ServiceContext,
  scope: ProfileScope,
  page: { offset: number; perPage: number },
): Promise<CustomOauthProfileApi[]> {
  return (await listProfileRows(ctx.db, scope, page)).map(profileToApi);
}

export async function getProfile(ctx: ServiceContext, scope: ProfileScope, id: number): Promise<CustomOauthProfileApi> {
  return profileToApi(assertFound(await findProfile(ctx.db, scope, id)));
}

export async function createProfile(
  ctx: ServiceContext,
  scope: ProfileScope,
  input: ProfileInput,
): Promise<CustomOauthProfileApi> {
  const errors: FieldErrors = {};
  const name = checkName(input.name, errors);
  const providerError = providerProblem(input.provider);
  if (providerError) errors.provider = [providerError];
  const clientId = checkText(input.data?.client_id, 'data.client_id', MAX_CLIENT_ID, errors, true);
  const clientSecret = checkText(input.data?.client_secret, 'data.client_secret', MAX_SECRET, errors, true);
  const token =
    input.data?.token === null ? undefined : checkText(input.data?.token, 'data.token', MAX_SECRET, errors, false);
  if (Object.keys(errors).length > 0) throw invalid(errors);

  const now = toStored(ctx.clock.now());
  const id = await uniqueOr422(() =>
    insertProfile(ctx.db, {
      workspace_id: scope.workspaceId,
      environment_id: scope.environmentId,
      name: name as string,
      name_key: (name as string).toLowerCase(),
      provider: input.provider as string,
      client_id: clientId as string,
      client_secret_sealed: ctx.secretBox.seal(clientSecret as string),
      token_sealed: token === undefined || token === '' ? null : ctx.secretBox.seal(token),
      created_at: now,
      updated_at: now,
    }),
  );
  return getProfile(ctx, scope, id);
}

/** Partial update: an omitted client_secret or token keeps the stored one; `token: null` removes it. */
export async function updateProfile(
  ctx: ServiceContext,
  scope: ProfileScope,
  id: number,
  input: ProfileInput,
): Promise<CustomOauthProfileApi> {
  const data = input.data ?? {};
  if (
    input.name === undefined &&
    input.provider === undefined &&
    data.client_id === undefined &&
    data.client_secret === undefined &&
    data.token === undefined
  ) {
    throw new AppError('nothing_to_update', {
      errors: { body: ['must contain at least one of name, provider, data.client_id, data.client_secret, data.token'] },
    });
  }
  const errors: FieldErrors = {};
  const name = input.name === undefined ? undefined : checkName(input.name, errors);
  if (input.provider !== undefined) {
    const providerError = providerProblem(input.provider);
    if (providerError) errors.provider = [providerError];
  }
  const clientId = checkText(data.client_id, 'data.client_id', MAX_CLIENT_ID, errors, data.client_id !== undefined);
  const clientSecret = checkText(
    data.client_secret,
    'data.client_secret',
    MAX_SECRET,
    errors,
    data.client_secret !== undefined,
  );
  const token = data.token === null ? null : checkText(data.token, 'data.token', MAX_SECRET, errors, false);
  if (Object.keys(errors).length > 0) throw invalid(errors);

  return ctx.db.transaction().execute(async (trx) => {
    const current = assertFound(await findProfile(trx, scope, id));
    if (input.provider !== undefined && input.provider !== current.provider && current.shared_accounts_count > 0) {
      throw new AppError('custom_oauth_profile_provider_locked');
    }
    await uniqueOr422(() =>
      updateProfileRow(trx, scope, id, {
        ...(name !== undefined ? { name, name_key: name.toLowerCase() } : {}),
        ...(input.provider !== undefined ? { provider: input.provider } : {}),
        ...(clientId !== undefined ? { client_id: clientId } : {}),
        ...(clientSecret !== undefined ? { client_secret_sealed: ctx.secretBox.seal(clientSecret) } : {}),
        ...(token === null || token === ''
          ? { token_sealed: null }
          : token !== undefined
            ? { token_sealed: ctx.secretBox.seal(token) }
            : {}),
        updated_at: toStored(ctx.clock.now()),
      }),
    );
    return profileToApi(assertFound(await findProfile(trx, scope, id)));
  });
}

export async function removeProfile(ctx: ServiceContext, scope: ProfileScope, id: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const current = assertFound(await findProfile(trx, scope, id));
    if (current.shared_accounts_count > 0) {
      throw new AppError('custom_oauth_profile_in_use', { params: { count: current.shared_accounts_count } });
    }
    await deleteProfile(trx, scope, id);
  });
}

/** The profile's OAuth app credentials in clear, for the OAuth handshake of a connection that uses it. */
export async function openProfileCredentials(
  ctx: ServiceContext,
  scope: ProfileScope,
  id: number,
): Promise<{ provider: string; clientId: string; clientSecret: string; token: string | null }> {
  const row = assertFound(await findProfileSecrets(ctx.db, scope, id));
  return {
    provider: row.provider,
    clientId: row.client_id,
    clientSecret: ctx.secretBox.open(row.client_secret_sealed),
    token: row.token_sealed === null ? null : ctx.secretBox.open(row.token_sealed),
  };
}

function checkName(name: string | undefined, errors: FieldErrors): string | undefined {
  const trimmed = name?.trim();
  if (trimmed === undefined || trimmed === '') errors.name = ["can't be blank"];
  else if (trimmed.length > MAX_NAME) errors.name = [`is too long (maximum is ${MAX_NAME} characters)`];
  return trimmed;
}

function checkText(
  value: string | undefined,
  field: string,
  max: number,
  errors: FieldErrors,
  required: boolean,
): string | undefined {
  if (value === undefined) {
    if (required) errors[field] = ["can't be blank"];
    return undefined;
  }
  if (required && value.trim() === '') errors[field] = ["can't be blank"];
  else if (value.length > max) errors[field] = [`is too long (maximum is ${max} characters)`];
  return value;
}
