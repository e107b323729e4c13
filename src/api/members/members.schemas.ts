import { Type } from 'typebox';
import { PageQuery, Timestamp } from '../../http/schemas.ts';

const NullableString = Type.Union([Type.String(), Type.Null()]);

export const MembersQuery = Type.Object({
  email: Type.Optional(
    Type.String({ maxLength: 320, description: 'Only the member or invitation with this e-mail (any case)' }),
  ),
  ...PageQuery,
});

export const Member = Type.Object({
  id: Type.Union([Type.Integer(), Type.Null()], { description: "The user's id; null for an invitation" }),
  name: Type.String(),
  email: Type.String(),
  external_id: NullableString,
  time_zone: Type.String(),
  created_at: Timestamp,
  grant_type: Type.String({ description: 'owner, or invitation for someone invited who has not joined' }),
  status: Type.Union([Type.Literal('active'), Type.Literal('invited')]),
  roles: Type.Array(Type.Object({ environment_type: Type.String(), role_name: Type.String() })),
  invitation: Type.Union([
    Type.Object({
      id: Type.Integer(),
      status: Type.String(),
      invited_at: Timestamp,
      sent_at: Type.Union([Timestamp, Type.Null()]),
    }),
    Type.Null(),
  ]),
  last_activity_log: Type.Union([
    Type.Object({ id: Type.Integer(), event_type: Type.String(), created_at: Timestamp }),
    Type.Null(),
  ]),
});

export const MemberList = Type.Object({ data: Type.Array(Member), total: Type.Integer() });
