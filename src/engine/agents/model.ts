// The model a step calls: the model connection in the step's config slot, else the oldest
// authorized `openai_compatible` connection of the recipe's environment (recipes exported from
// the vendor name no connection for AI steps, so they run unchanged).
import { resolveConnectionCredentials } from '../../api/connections/connections.service.ts';
import { findFirstAuthorizedConnection } from '../../api/connections/connections.store.ts';
import { IncompleteCredentialsError, modelRequestSettings } from '../../api/connections/connection-input.ts';
import { isModelProvider, MODEL_PROVIDER } from '../../api/connections/providers.ts';
import { StepError, type StepContext } from '../connectors/types.ts';
import { chatClient, type ChatFn } from './model-client.ts';

export async function modelFor(sc: StepContext): Promise<{ chat: ChatFn; model: string }> {
  const slot = await sc.connection();
  let values: Record<string, unknown>;
  if (slot) {
    if (!isModelProvider(slot.provider))
      throw new StepError(
        'Connection error',
        `the connection of this step is a ${slot.provider} connection, not a ${MODEL_PROVIDER} model connection`,
      );
    values = slot.values;
  } else {
    const scope = { workspaceId: sc.recipe.workspaceId, environmentId: sc.recipe.environmentId };
    const id = await findFirstAuthorizedConnection(sc.ctx.db, scope, MODEL_PROVIDER);
    if (id === undefined)
      throw new StepError(
        'Connection error',
        `no model connection: create a connection of provider ${MODEL_PROVIDER} (base_url, api_key, model) in this environment`,
      );
    try {
      values = (await resolveConnectionCredentials(sc.ctx, scope, id)).values;
    } catch (error) {
      throw new StepError('Connection error', `the model connection cannot be used: ${(error as Error).message}`);
    }
  }
  let settings;
  try {
    settings = modelRequestSettings(values as Parameters<typeof modelRequestSettings>[0]);
  } catch (error) {
    if (error instanceof IncompleteCredentialsError) throw new StepError('Connection error', error.message);
    throw error;
  }
  return {
    model: settings.model,
    chat: chatClient({
      ...settings,
      timeoutMs: sc.limits.modelTimeoutMs,
      maxResponseBytes: sc.limits.modelMaxResponseBytes,
    }),
  };
}
