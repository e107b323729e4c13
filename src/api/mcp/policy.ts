// An MCP server's policy (contract 23 §1): a rate limit per minute, a quota over 30/60/90 days or
// a year, IP allow and deny lists. Stored as JSON on the server row; enforced by src/mcp/.
export interface McpServerPolicy {
  rate_limits: { limit: number; interval: 'minute' } | null;
  quota_limits: { limit: number; interval: '30 days' | '60 days' | '90 days' | 'year' } | null;
  ip_allow_list: string[];
  ip_deny_list: string[];
}

export const EMPTY_POLICY: McpServerPolicy = {
  rate_limits: null,
  quota_limits: null,
  ip_allow_list: [],
  ip_deny_list: [],
};

export const QUOTA_SECONDS: Record<string, number> = {
  '30 days': 30 * 86400,
  '60 days': 60 * 86400,
  '90 days': 90 * 86400,
  year: 365 * 86400,
};

export function parsePolicy(text: string | null): McpServerPolicy {
  if (text === null) return EMPTY_POLICY;
  const value = JSON.parse(text) as Partial<McpServerPolicy>;
  return {
    rate_limits: value.rate_limits ?? null,
    quota_limits: value.quota_limits ?? null,
    ip_allow_list: value.ip_allow_list ?? [],
    ip_deny_list: value.ip_deny_list ?? [],
  };
}
