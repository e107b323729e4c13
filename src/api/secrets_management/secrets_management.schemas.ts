import { Type } from 'typebox';
import { Timestamp } from '../../http/schemas.ts';

export const SecretNameParams = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255, description: 'Secret name: letters, digits, _ . -' }),
});

export const PutSecretBody = Type.Object({
  value: Type.String({
    maxLength: 100_000,
    description: 'The secret value (at most 64 KiB in UTF-8); stored encrypted, never returned',
  }),
});

const SecretSummary = Type.Object({ name: Type.String(), created_at: Timestamp, updated_at: Timestamp });

export const SecretListResult = Type.Object({ result: Type.Array(SecretSummary) });
export const SecretResult = Type.Object({ result: SecretSummary });
export const SecretDeleteResult = Type.Object({ result: Type.Object({ success: Type.Boolean() }) });
