// Page-number paging (contract 00 §7): page from 1, per_page default 100, clamped to a max.
// Missing, zero, negative or non-numeric values fall back to the defaults instead of a 400.

export interface Page {
  page: number;
  perPage: number;
  offset: number;
}

export function parsePage(
  query: { page?: unknown; per_page?: unknown },
  options: { max?: number; fallback?: number } = {},
): Page {
  const max = options.max ?? 100;
  const fallback = options.fallback ?? 100;
  const page = positiveInt(query.page) ?? 1;
  const perPage = Math.min(positiveInt(query.per_page) ?? fallback, max);
  return { page, perPage, offset: (page - 1) * perPage };
}

function positiveInt(value: unknown): number | undefined {
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\d{1,9}$/.test(value.trim())
        ? Number(value)
        : NaN;
  return Number.isInteger(n) && n > 0 && n <= 1_000_000_000 ? n : undefined;
}
