import { Type } from 'typebox';
import { Timestamp } from '../../http/schemas.ts';

const NullableString = Type.Union([Type.String(), Type.Null()]);

export const WorkspaceDetails = Type.Object({
  id: Type.Integer({ description: 'Workspace id' }),
  name: Type.String(),
  created_at: Timestamp,
  plan_id: Type.String(),
  current_billing_period_start: Timestamp,
  current_billing_period_end: Timestamp,
  expert: Type.Boolean(),
  avatar_url: NullableString,
  recipes_count: Type.Integer(),
  interested_applications: Type.Array(Type.String()),
  company_name: NullableString,
  location: NullableString,
  last_seen: NullableString,
  contact_phone: NullableString,
  contact_email: NullableString,
  about_me: NullableString,
  email: Type.String(),
  phone: NullableString,
  active_recipes_count: Type.Integer(),
  root_folder_id: Type.Integer({ description: 'The Home folder: default parent of folders and projects' }),
});
