import { Type } from 'typebox';
import { IdInput, PageQuery, Timestamp } from '../../http/schemas.ts';

export const Skill = Type.Object({
  id: Type.String({ description: 'The skill handle (skill-...)' }),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  recipe_id: Type.Integer(),
  provider_id: Type.Integer({ description: 'The recipe id, as recipe_id' }),
  provider_type: Type.String(),
  folder_id: Type.Integer(),
  project_id: Type.Integer(),
  running: Type.Boolean(),
  genies_count: Type.Integer(),
  trigger_description: Type.Union([Type.String(), Type.Null()]),
  applications: Type.Array(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const SkillEnvelope = Type.Object({ data: Skill });
export const SkillList = Type.Object({ data: Type.Array(Skill) });
export const SkillParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
export const CreateSkillBody = Type.Object({ recipe_id: IdInput });
export const SkillListQuery = Type.Object({ ...PageQuery });
