// What the lookup table tests (src/api/lookup_tables/) do again and again, through HTTP: make a
// table, add rows, read every row, list the tables' names and count them.
import assert from 'node:assert/strict';
import type { Reply, TestApp } from './helpers.ts';

export const COUNTRY_SCHEMA = [{ label: 'code' }, { label: 'country' }, { label: 'currency' }];

export function lookupTables(t: () => TestApp) {
  let tableCounter = 0;

  /** A table named `table_<n>` (n counting up in this file) with this schema. */
  const newTable = async (
    schema: unknown = COUNTRY_SCHEMA,
    extra: Record<string, unknown> = {},
    token?: string,
  ): Promise<{ id: number; name: string }> => {
    tableCounter += 1;
    const res = await t().call('POST', '/api/lookup_tables', {
      body: { name: `table_${tableCounter}`, schema, ...extra },
      ...(token ? { token } : {}),
    });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };

  const addRow = (tableId: number, data: Record<string, unknown>, token?: string): Promise<Reply> =>
    t().call('POST', `/api/lookup_tables/${tableId}/rows`, { body: { data }, ...(token ? { token } : {}) });

  const addRows = async (tableId: number, rows: Array<Record<string, unknown>>): Promise<number[]> => {
    const ids: number[] = [];
    for (const data of rows) {
      const res = await addRow(tableId, data);
      assert.equal(res.status, 200, res.text);
      ids.push(res.body.id);
    }
    return ids;
  };

  const allRows = async (tableId: number): Promise<Array<{ id: number; data: Record<string, string | null> }>> => {
    const res = await t().call('GET', `/api/lookup_tables/${tableId}/rows?per_page=1000`);
    assert.equal(res.status, 200, res.text);
    return res.body;
  };

  const tableNames = async (token?: string): Promise<string[]> => {
    const res = await t().call('GET', '/api/lookup_tables?per_page=100', token ? { token } : {});
    assert.equal(res.status, 200, res.text);
    return res.body.map((table: { name: string }) => table.name);
  };

  const allTableCount = async (): Promise<number> => {
    let count = 0;
    for (let page = 1; ; page++) {
      const res = await t().call('GET', `/api/lookup_tables?per_page=100&page=${page}`);
      count += res.body.length;
      if (res.body.length < 100) return count;
    }
  };

  return { newTable, addRow, addRows, allRows, tableNames, allTableCount };
}
