// What a lookup needs of a table, remembered per process so that a recipe's lookup is one
// statement: the table's id, name, tenancy, project (and its folder) and columns. Entries are
// dropped on 'lookup_tables.changed' (every change of a table: create, rename, schema, delete,
// project deleted), and all of them on 'everything.changed'. A notification from another node
// arrives a little late, so the statement that reads rows also checks that the table still has
// these facts (lookup_tables.store.ts, liveTableCondition); on a mismatch the entry is dropped and
// the table read again.
import type { Notifier } from '../../notifier.ts';
import { labelsOf, type TableScope, type VisibleTable } from './lookup_tables.store.ts';

/** The facts of a table that a lookup and a row write depend on. */
export type TableFacts = Pick<
  VisibleTable,
  'id' | 'name' | 'name_key' | 'workspace_id' | 'environment_id' | 'project_id' | 'project_folder_id' | 'columns'
> & {
  readonly labels: readonly string[];
};

export function factsOf(table: VisibleTable): TableFacts {
  return {
    id: table.id,
    name: table.name,
    name_key: table.name_key,
    workspace_id: table.workspace_id,
    environment_id: table.environment_id,
    project_id: table.project_id,
    project_folder_id: table.project_folder_id,
    columns: table.columns,
    labels: labelsOf(table),
  };
}

/** The visibility rule of visibleTables (lookup_tables.store.ts), applied to remembered facts. */
export function visibleTo(facts: TableFacts, scope: TableScope): boolean {
  return (
    facts.workspace_id === scope.workspaceId &&
    facts.environment_id === scope.environmentId &&
    (scope.allFolders || (facts.project_folder_id !== null && scope.folderIds.includes(facts.project_folder_id)))
  );
}

/** Tables remembered per process; the least recently used goes first. */
export const MAX_REMEMBERED_TABLES = 5000;

export class LookupTableCache {
  /** By id, in order of use (a Map keeps insertion order: the first key is the least recently used). */
  readonly #byId = new Map<number, TableFacts>();
  /** `environmentId:name_key` -> id. */
  readonly #byName = new Map<string, number>();
  /** Bumped by every invalidation: a read that began before one is not remembered. */
  #generation = 0;

  constructor(notifier: Notifier) {
    notifier.subscribe('lookup_tables.changed', ({ environmentId }) => this.forgetEnvironment(environmentId));
    notifier.subscribe('everything.changed', () => this.clear());
  }

  get generation(): number {
    return this.#generation;
  }

  byId(id: number): TableFacts | undefined {
    const facts = this.#byId.get(id);
    if (facts) {
      this.#byId.delete(id);
      this.#byId.set(id, facts);
    }
    return facts;
  }

  byName(environmentId: number, nameKey: string): TableFacts | undefined {
    const id = this.#byName.get(`${environmentId}:${nameKey}`);
    return id === undefined ? undefined : this.byId(id);
  }

  /** Remember a table read at `generation` (unless an invalidation came since: it may be older). */
  remember(facts: TableFacts, generation: number): void {
    if (generation !== this.#generation) return;
    this.#drop(facts.id);
    this.#byId.set(facts.id, facts);
    if (facts.name_key !== null) this.#byName.set(`${facts.environment_id}:${facts.name_key}`, facts.id);
    while (this.#byId.size > MAX_REMEMBERED_TABLES) {
      this.#drop(this.#byId.keys().next().value as number);
    }
  }

  /** The table changed (or was found changed): read it again at its next use. */
  forget(id: number): void {
    this.#generation += 1;
    this.#drop(id);
  }

  forgetEnvironment(environmentId: number): void {
    this.#generation += 1;
    for (const facts of [...this.#byId.values()]) if (facts.environment_id === environmentId) this.#drop(facts.id);
  }

  clear(): void {
    this.#generation += 1;
    this.#byId.clear();
    this.#byName.clear();
  }

  #drop(id: number): void {
    const facts = this.#byId.get(id);
    if (!facts) return;
    this.#byId.delete(id);
    const key = `${facts.environment_id}:${facts.name_key}`;
    if (this.#byName.get(key) === id) this.#byName.delete(key);
  }
}
