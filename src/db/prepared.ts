// Queries built once and run many times. Building a query with Kysely and compiling it to SQL
// costs more than running a small indexed statement (tens of microseconds a query), so a hot
// path can describe its query once, with named placeholders where the values go; it is compiled
// on first use by the database's own query compiler (the SQL differs between SQLite and
// PostgreSQL, the code does not), and each run only binds the values. With SQLite the adapter's
// statement cache (sqlite-adapter.ts) then reuses the prepared statement as well.
// Kysely plugins transform the query once, when it is compiled, and every result; a plugin that
// pairs a query with its result by query id would not see them paired (none is used here).
import { CompiledQuery, type Compilable, type Kysely, type QueryResult, type Transaction } from 'kysely';
import type { Database } from './types.ts';

/** A placeholder stands for the value of the run's parameter of that name. */
export type Placeholder<P> = <K extends keyof P & string>(name: K) => P[K];

export interface PreparedQuery<P, R, DB = Database> {
  /** Run with these values, in `db` or in a transaction. */
  execute(db: Kysely<DB> | Transaction<DB>, params: P): Promise<QueryResult<R>>;
}

/** Each bound value of the compiled query: a named parameter, or a constant of the query itself. */
type Slot = { name: string } | { value: unknown };

/** Where a bound value is read from the run's parameters (worked out once per slot). */
type Getter<P> = (params: P) => unknown;

interface Compiled<P> {
  sql: string;
  query: CompiledQuery['query'];
  getters: ReadonlyArray<Getter<P>>;
}

// A placeholder is a string no caller can produce by accident (it only ever reaches the query
// builder, never the database): NUL, a marker, the name.
const MARK = '\u0000prepared-parameter:';

/**
 * `build` receives a database handle (only to start the query from; nothing runs) and the
 * placeholder function; it must build the same shape whatever the values (no branching on them).
 * Every placeholder must end up as a bound value of the compiled statement, which is checked.
 */
export function prepareQuery<P extends Record<string, unknown>, R, DB = Database>(
  build: (db: Kysely<DB>, param: Placeholder<P>) => Compilable<R>,
  options: {
    /**
     * How a named value is read from the parameters (default: `params[name]`). A query with many
     * values built from structured input (rows of a multi-row insert) reads them in place rather
     * than from a flattened object of hundreds of keys.
     */
    bind?: (name: string) => Getter<P>;
  } = {},
): PreparedQuery<P, R, DB> {
  const bind = options.bind ?? ((name: string) => (params: P) => params[name]);
  // One compiled form per dialect adapter (transactions share their database's adapter).
  const byAdapter = new WeakMap<object, Compiled<P>>();
  const compile = (db: Kysely<DB>): Compiled<P> => {
    const adapter = db.getExecutor().adapter;
    const cached = byAdapter.get(adapter);
    if (cached) return cached;
    const names = new Set<string>();
    const param = ((name: string) => {
      names.add(name);
      return `${MARK}${name}`;
    }) as Placeholder<P>;
    const compiled = build(db, param).compile();
    const slots = compiled.parameters.map((value): Slot =>
      typeof value === 'string' && value.startsWith(MARK) ? { name: value.slice(MARK.length) } : { value },
    );
    const bound = new Set(slots.flatMap((slot) => ('name' in slot ? [slot.name] : [])));
    const lost = [...names].filter((name) => !bound.has(name));
    if (lost.length > 0)
      throw new Error(
        `prepareQuery: placeholder(s) ${lost.join(', ')} did not become bound values of: ${compiled.sql}`,
      );
    const getters = slots.map((slot): Getter<P> => {
      if ('name' in slot) return bind(slot.name);
      const value = slot.value;
      return () => value;
    });
    const entry: Compiled<P> = { sql: compiled.sql, query: compiled.query, getters };
    byAdapter.set(adapter, entry);
    return entry;
  };
  return {
    async execute(db, params) {
      const { sql, query, getters } = compile(db);
      const parameters = new Array<unknown>(getters.length);
      for (let i = 0; i < getters.length; i++) parameters[i] = (getters[i] as Getter<P>)(params);
      return db.executeQuery<R>({ ...CompiledQuery.raw(sql, parameters), query });
    },
  };
}
