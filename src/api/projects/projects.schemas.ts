import { Type, type Static } from 'typebox';
import { Id, PageQuery } from '../../http/schemas.ts';

export const ProjectParams = Type.Object({ project_id: Id });

export const ProjectListQuery = Type.Object(PageQuery);

// Unknown fields are ignored, as the vendor does.
export const UpdateProjectBody = Type.Object({
  name: Type.Optional(
    Type.String({ description: 'Also renames the project folder; unique among projects (case-insensitive)' }),
  ),
  description: Type.Optional(Type.String({ description: 'Up to 1,000 characters; empty clears it' })),
  color: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description:
        "The project's colour as the vendor's project.json names it (up to 40 characters); null or empty clears it",
    }),
  ),
  icon: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description:
        "The project's icon as the vendor's project.json names it (up to 100 characters); null or empty clears it",
    }),
  ),
});
export type UpdateProjectBody = Static<typeof UpdateProjectBody>;

export const Project = Type.Object({
  id: Type.Integer({ description: 'Project id (differs from its folder id)' }),
  description: Type.String(),
  folder_id: Type.Integer({ description: 'Id of the project folder' }),
  name: Type.String(),
  color: Type.Union([Type.String(), Type.Null()], { description: "null until set (PUT, or a package's project.json)" }),
  icon: Type.Union([Type.String(), Type.Null()], { description: "null until set (PUT, or a package's project.json)" }),
});

export const ProjectList = Type.Array(Project);
