// One outbound policy for every request the server makes on a user's behalf (docs/adr/0019):
// connectors, the HTTP connector and its polling trigger, proxy collections, JWKS and OIDC
// discovery. Requests go through an undici dispatcher whose connect step resolves the host name,
// checks the addresses and connects to the one it checked, so a DNS answer that changes between
// the check and the connection (DNS rebinding) cannot move the request.
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import os from 'node:os';
import type { Agent, buildConnector, Dispatcher } from 'undici';
import { addRange, classify, embeddedIPv4, normalizeAddress, type AddressClass } from './addresses.ts';
import { undici } from './undici.ts';

export interface OutboundSettings {
  /** Loopback (127.0.0.0/8, ::1) and the unspecified address; default refused. */
  allowLoopback: boolean;
  /** Private ranges (RFC 1918, CGNAT, unique local IPv6); default allowed. */
  allowPrivate: boolean;
  /** CIDR ranges (or single addresses) allowed whatever their class; the server's own ports stay refused. */
  allowAddresses: readonly string[];
  /** Ports this server listens on: refused on its own addresses. */
  ownPorts: readonly number[];
  /** Its advertised URLs (PUBLIC_BASE_URL...): their host and port are refused by name. */
  ownUrls: readonly string[];
}

export type LookupAll = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export interface OutboundPolicy {
  /** The shared dispatcher: pass it as `dispatcher` to every undici call made for a user. */
  readonly dispatcher: Dispatcher;
  /** A dispatcher of its own (a pool with other limits) that checks addresses the same way. */
  agent(options: Agent.Options): Agent;
  /**
   * A one-off dispatcher with TLS options of its own (a client certificate, pinned server
   * certificates) that checks addresses the same way; the caller closes it.
   */
  tlsAgent(tls: buildConnector.BuildOptions): Agent;
  /** Why a connection to this address and port is refused, or null when it is allowed. */
  refusal(address: string, port: number): string | null;
  /** Throws OutboundRefusedError when the URL names the server itself by one of its public URLs. */
  checkUrl(url: URL): void;
  /** A port this process listens on, known once it listens (PORT=0). */
  addOwnPort(port: number): void;
  /**
   * The settings as they stand (own ports added since included), for another thread to apply the
   * same policy (the Ruby runtime's request thread); null when names resolve through a lookup
   * given in code, which another thread cannot have.
   */
  settings(): OutboundSettings | null;
  close(): Promise<void>;
}

/** A request the outbound policy refused; its message says which address and why, never more. */
export class OutboundRefusedError extends Error {
  override name = 'OutboundRefusedError';
  readonly code = 'OUTBOUND_REFUSED';
}

const CLASS_TEXT: Record<AddressClass, string> = {
  loopback: 'a loopback address',
  unspecified: 'the unspecified address (this host)',
  link_local: 'a link-local address (cloud metadata lives there)',
  metadata: 'a cloud metadata address',
  private: 'a private address',
  multicast: 'a multicast or broadcast address',
  reserved: 'a reserved address',
  public: 'a public address',
};

const defaultLookup: LookupAll = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export function createOutboundPolicy(settings: OutboundSettings, options: { lookup?: LookupAll } = {}): OutboundPolicy {
  const lookup = options.lookup ?? defaultLookup;
  const portable = options.lookup === undefined;
  const ownPorts = new Set(settings.ownPorts.filter((p) => p > 0));
  const allowed = new BlockList();
  for (const entry of settings.allowAddresses) addRange(allowed, entry);
  const ownHosts = new Set(
    settings.ownUrls.flatMap((raw) => {
      try {
        const url = new URL(raw);
        return [`${url.hostname.toLowerCase()}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`];
      } catch {
        return [];
      }
    }),
  );

  function isOwnAddress(ip: string): boolean {
    const cls = classify(ip);
    if (cls === 'loopback' || cls === 'unspecified') return true;
    const target = embeddedIPv4(ip) ?? ip;
    for (const list of Object.values(os.networkInterfaces()))
      for (const info of list ?? []) if (normalizeAddress(info.address) === target) return true;
    return false;
  }

  function refusal(address: string, port: number): string | null {
    const ip = normalizeAddress(address);
    if (ip === null) return `${address} is not an IP address`;
    if (ownPorts.has(port) && isOwnAddress(ip)) return `${ip} port ${port} is this server itself`;
    const target = embeddedIPv4(ip) ?? ip;
    if (allowed.check(target, isIP(target) === 4 ? 'ipv4' : 'ipv6')) return null;
    const cls = classify(ip);
    if (cls === 'public') return null;
    if ((cls === 'loopback' || cls === 'unspecified') && settings.allowLoopback) return null;
    if (cls === 'private' && settings.allowPrivate) return null;
    const setting =
      cls === 'loopback' || cls === 'unspecified'
        ? ' (OUTBOUND_ALLOW_LOOPBACK allows it)'
        : cls === 'private'
          ? ' (OUTBOUND_ALLOW_PRIVATE allows it)'
          : ' (OUTBOUND_ALLOW_ADDRESSES can list it)';
    return `${ip} is ${CLASS_TEXT[cls]}${setting}`;
  }

  function checkUrl(url: URL): void {
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    if (ownHosts.has(`${url.hostname.toLowerCase()}:${port}`))
      throw new OutboundRefusedError(`requests to ${url.host} are refused: it is this server's own address`);
  }

  function checkedConnector(connectOptions: buildConnector.BuildOptions): buildConnector.connector {
    const connect = undici().buildConnector(connectOptions);
    return (opts, callback) => {
      const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80);
      const hostname = opts.hostname.replace(/^\[|\]$/g, '');
      const fail = (message: string) => callback(new OutboundRefusedError(message), null);
      const refusedByName = ownHosts.has(`${hostname.toLowerCase()}:${port}`);
      if (refusedByName) return fail(`requests to ${hostname}:${port} are refused: it is this server's own address`);
      const literal = normalizeAddress(hostname);
      const resolved: Promise<string[]> =
        literal !== null ? Promise.resolve([literal]) : lookup(hostname).then((all) => all.map((a) => a.address));
      resolved.then(
        (addresses) => {
          if (addresses.length === 0) return fail(`${hostname} did not resolve to any address`);
          const reasons: string[] = [];
          for (const address of addresses) {
            const reason = refusal(address, port);
            if (reason === null) {
              // Connect to exactly the address that was checked; TLS still verifies the name.
              connect({ ...opts, hostname: address }, callback);
              return;
            }
            reasons.push(reason);
          }
          const name = literal !== null ? '' : `${hostname} resolves to `;
          fail(`the request to ${hostname}:${port} is refused: ${name}${reasons[0]}`);
        },
        (error: unknown) =>
          callback(
            Object.assign(new Error(`cannot resolve ${hostname}: ${(error as { code?: string }).code ?? 'error'}`), {
              code: (error as { code?: string }).code ?? 'ENOTFOUND',
            }),
            null,
          ),
      );
    };
  }

  const agents: Agent[] = [];
  const agent = (agentOptions: Agent.Options): Agent => {
    const created = new (undici().Agent)({ ...agentOptions, connect: checkedConnector({ timeout: 10_000 }) });
    agents.push(created);
    return created;
  };
  // Made at the first request (undici loads then: src/outbound/undici.ts).
  let dispatcher: Agent | undefined;
  const tlsAgent = (tls: buildConnector.BuildOptions): Agent =>
    new (undici().Agent)({ connect: checkedConnector({ timeout: 10_000, ...tls }) });

  return {
    get dispatcher() {
      return (dispatcher ??= agent({ keepAliveTimeout: 10_000 }));
    },
    agent,
    tlsAgent,
    refusal,
    checkUrl,
    addOwnPort(port) {
      if (port > 0) ownPorts.add(port);
    },
    settings() {
      return portable ? { ...settings, ownPorts: [...ownPorts] } : null;
    },
    async close() {
      await Promise.all(agents.map((a) => a.close().catch(() => undefined)));
    },
  };
}
