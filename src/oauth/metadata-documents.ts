import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import * as v from 'valibot';
import type { Logger } from '../log';
import { sanitiseClientName } from './client-names';
import { OAuthError } from './errors';
import { isAcceptableRedirectUri } from './redirect-uris';

// D18, Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a client_id
// that is an https URL names the JSON document at that URL, which gives the client's name and
// redirect URIs. This module fetches such documents safely and caches them in memory; the
// client row that grants reference lives in the database (src/oauth/clients.ts).

/** D18: the fetch — 5 s in all, at most 5 KiB of body. */
export const METADATA_DOCUMENT_TIMEOUT_MS = 5_000;
export const METADATA_DOCUMENT_MAX_BYTES = 5 * 1024;
/** README: a client_id URL longer than this names no client. */
export const METADATA_DOCUMENT_URL_MAX_LENGTH = 255;
/** README (cache bounds): Cache-Control max-age clamped to [60 s, 24 h], 1 h without one; refusals 30 s. */
export const CACHE_MIN_SECONDS = 60;
export const CACHE_MAX_SECONDS = 24 * 60 * 60;
export const CACHE_DEFAULT_SECONDS = 60 * 60;
export const CACHE_REFUSAL_SECONDS = 30;
export const CACHE_MAX_ENTRIES = 1_000;
/** README: fetches in flight at once, per process; beyond that a new document is refused for now. */
export const MAX_FETCHES_IN_FLIGHT = 16;

/** A client as its metadata document describes it, names and redirect URIs already checked. */
export interface ClientMetadata {
  clientId: string;
  /** Cleaned as D13 cleans `client_name`. */
  name: string;
  redirectUris: string[];
}

/**
 * Why a document was not used. `detail` is said to the client in `error_description`; a refusal
 * at the network level (unreachable, not a public address) says only that the fetch failed, so
 * the endpoint tells nobody what lies behind a name; `reason` goes to the log.
 */
export class MetadataDocumentRefused extends Error {
  constructor(
    readonly reason: string,
    readonly detail = 'could not be fetched',
  ) {
    super(`the client metadata document ${detail}`);
    this.name = 'MetadataDocumentRefused';
  }
}

/** An id that is meant as a document's URL (any case of `http://` or `https://`): never looked up in the table. */
export function isMetadataDocumentUrl(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

/**
 * The client_id URL rules of the draft: https, a path, no dot segments, no fragment, no user
 * info. We also want it in the one spelling a URL parser gives it (lower-case scheme and host, no
 * default port, no percent-encoded dots), printable ASCII and at most 255 characters: the id is
 * compared character for character with the document's `client_id` and with every grant's.
 */
export function parseMetadataDocumentUrl(clientId: string): URL {
  const refuse = () =>
    new MetadataDocumentRefused(
      'malformed client_id URL',
      'URL is not acceptable: a client_id URL is https, with a path, without user info, fragment or dot segments, written as a URL parser writes it',
    );
  if (clientId.length > METADATA_DOCUMENT_URL_MAX_LENGTH || /[^\x21-\x7e]/.test(clientId)) throw refuse();
  if (/^http:/i.test(clientId)) {
    throw new MetadataDocumentRefused('not https', 'URL is not acceptable: a client_id URL must be https');
  }
  if (!clientId.startsWith('https://')) throw refuse();
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw refuse();
  }
  if (url.href !== clientId || url.username || url.password || url.hash || clientId.includes('#')) throw refuse();
  if (url.pathname === '/' || /(^|\/)\.\.?(\/|$)/.test(url.pathname)) throw refuse();
  return url;
}

// Addresses a fetch may reach (D18): public unicast only. IPv4 special-purpose ranges (RFC 6890 and
// its registry): this network, private, shared (CGNAT), loopback, link-local, IETF protocol
// assignments, documentation, 6to4 relay, benchmarking, multicast, reserved and broadcast.
const NOT_PUBLIC_V4 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) NOT_PUBLIC_V4.addSubnet(network, prefix, 'ipv4');

// IPv6: only global unicast (2000::/3) is public, which leaves out the unspecified address, ::1,
// IPv4-mapped and -compatible forms (checked as IPv4 below), NAT64, unique local fc00::/7,
// link-local fe80::/10 and multicast; within it, the special-purpose 2001::/23 (Teredo among them),
// documentation 2001:db8::/32 and 3fff::/20, and 6to4 2002::/16, which embed other addresses.
const GLOBAL_UNICAST_V6 = new BlockList();
GLOBAL_UNICAST_V6.addSubnet('2000::', 3, 'ipv6');
const NOT_PUBLIC_V6 = new BlockList();
for (const [network, prefix] of [['2001::', 23], ['2001:db8::', 32], ['2002::', 16], ['3fff::', 20]] as const) {
  NOT_PUBLIC_V6.addSubnet(network, prefix, 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:a.b.c.d` or `::ffff:hhhh:hhhh`). */
function mappedIpv4(address: string): string | undefined {
  const match = /^::ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address);
  if (!match) return undefined;
  if (match[1]) return match[1];
  const high = Number.parseInt(match[2]!, 16);
  const low = Number.parseInt(match[3]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** D18: may a metadata-document fetch connect to this address? Anything unrecognised may not. */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return !NOT_PUBLIC_V4.check(bare, 'ipv4');
  if (family !== 6) return false;
  const v4 = mappedIpv4(bare);
  if (v4 !== undefined) return isIP(v4) === 4 && !NOT_PUBLIC_V4.check(v4, 'ipv4');
  return GLOBAL_UNICAST_V6.check(bare, 'ipv6') && !NOT_PUBLIC_V6.check(bare, 'ipv6');
}

/**
 * The socket's resolver: every address the name resolves to must be public, and the socket then
 * connects to one of exactly those addresses (no second resolution a rebinding name could change).
 * SNI, the certificate's check and the Host header keep the URL's host name.
 */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { family: options.family, hints: options.hints, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    if (addresses.length === 0 || !addresses.every((a) => isPublicAddress(a.address))) {
      return callback(new MetadataDocumentRefused('not a public address'), '', 0);
    }
    if (options.all) return callback(null, addresses);
    return callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};

export interface FetchOptions {
  /** D18: CIMD_ALLOW_PRIVATE_ADDRESSES=1, tests only. */
  allowPrivateAddresses: boolean;
  /** D18's 5 s; tests shorten it. */
  timeoutMs?: number;
  /**
   * Tests only: the certificate authority of a test server, in place of the system's. Real
   * processes get theirs through NODE_EXTRA_CA_CERTS, as an operator's would.
   */
  ca?: string;
}

interface Fetched {
  body: Buffer;
  cacheControl: string | undefined;
}

/** Takes the body of a 200 JSON answer of at most 5 KiB; anything else is a refusal. */
function readAnswer(res: IncomingMessage, maxBytes: number, settle: (outcome: Fetched | MetadataDocumentRefused) => void): void {
  const status = res.statusCode ?? 0;
  if (status >= 300 && status < 400) return settle(new MetadataDocumentRefused('redirect', 'must be served without a redirect'));
  if (status !== 200) return settle(new MetadataDocumentRefused(`status ${status}`, `could not be fetched (HTTP ${status})`));
  const type = (res.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (type !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(type)) {
    return settle(new MetadataDocumentRefused('not json', 'must be served as JSON (Content-Type application/json)'));
  }
  const encoding = (res.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity') return settle(new MetadataDocumentRefused('encoded', 'must be served without a Content-Encoding'));
  const tooLarge = () => new MetadataDocumentRefused('too large', `is larger than ${maxBytes / 1024} KiB`);
  const declared = Number(res.headers['content-length'] ?? 0);
  if (declared > maxBytes) return settle(tooLarge());
  const chunks: Buffer[] = [];
  let size = 0;
  res.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) return settle(tooLarge());
    chunks.push(chunk);
  });
  res.on('end', () => settle({ body: Buffer.concat(chunks), cacheControl: res.headers['cache-control'] }));
  res.on('error', () => settle(new MetadataDocumentRefused('unreachable')));
}

/** One GET of the document: https only, no redirect followed, a deadline for the whole exchange. */
function getDocument(url: URL, options: FetchOptions): Promise<Fetched> {
  const timeoutMs = options.timeoutMs ?? METADATA_DOCUMENT_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    let done = false;
    const settle = (outcome: Fetched | MetadataDocumentRefused) => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      // Whatever is left of the exchange is cut: a refused answer is not read any further.
      req.destroy();
      if (outcome instanceof MetadataDocumentRefused) reject(outcome);
      else resolve(outcome);
    };
    const req = request(url, {
      method: 'GET',
      // A connection of its own, so every fetch resolves and checks its address anew.
      agent: false,
      lookup: options.allowPrivateAddresses ? undefined : publicOnlyLookup,
      ...(options.ca === undefined ? {} : { ca: options.ca }),
      headers: { accept: 'application/json', 'user-agent': 'Ledger (OAuth client metadata document)' },
    });
    const deadline = setTimeout(
      () => settle(new MetadataDocumentRefused('timeout', `did not arrive within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    req.on('response', (res) => readAnswer(res, METADATA_DOCUMENT_MAX_BYTES, settle));
    req.on('error', (error) =>
      settle(error instanceof MetadataDocumentRefused ? error : new MetadataDocumentRefused(`unreachable (${(error as NodeJS.ErrnoException).code ?? error.name})`)),
    );
    req.end();
  });
}

/**
 * The document's fields we use (unknown ones are ignored, as at registration). A shared secret has
 * no place in a public document (the draft says so): one that carries one, or asks for a client
 * authentication method other than `none`, is refused.
 */
const MetadataDocumentSchema = v.looseObject({
  client_id: v.string('names no client_id'),
  client_name: v.optional(v.unknown()),
  redirect_uris: v.pipe(
    v.array(v.string('must list its redirect URIs as strings'), 'must list its redirect_uris'),
    v.minLength(1, 'must list at least one redirect URI'),
    v.maxLength(5, 'may list at most 5 redirect URIs'),
  ),
  client_secret: v.optional(v.never('must not carry a client_secret')),
  client_secret_expires_at: v.optional(v.never('must not carry a client_secret')),
  token_endpoint_auth_method: v.optional(v.literal('none', 'must use token_endpoint_auth_method none')),
});

/**
 * D18: fetches and checks the Client ID Metadata Document at `clientId`: an https URL (the draft's rules),
 * a public address unless allowed otherwise, 200 with JSON of at most 5 KiB within 5 s, no
 * redirect; `client_id` equal to the URL, 1 to 5 redirect URIs each acceptable at registration
 * (spec: redirect URIs accepted at registration), the name cleaned as D13 cleans `client_name`.
 * Also answers the document's Cache-Control, which the cache reads. Throws MetadataDocumentRefused.
 */
export async function fetchClientMetadataDocument(
  clientId: string,
  options: FetchOptions,
): Promise<{ metadata: ClientMetadata; cacheControl: string | undefined }> {
  const url = parseMetadataDocumentUrl(clientId);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!options.allowPrivateAddresses && isIP(host) !== 0 && !isPublicAddress(host)) {
    throw new MetadataDocumentRefused('not a public address');
  }
  const { body, cacheControl } = await getDocument(url, options);
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw new MetadataDocumentRefused('malformed json', 'is not valid JSON');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new MetadataDocumentRefused('not an object', 'is not a JSON object');
  }
  const parsed = v.safeParse(MetadataDocumentSchema, json);
  if (!parsed.success) throw new MetadataDocumentRefused('invalid', parsed.issues[0].message);
  const document = parsed.output;
  if (document.client_id !== clientId) {
    throw new MetadataDocumentRefused('client_id mismatch', 'names another client_id than its own URL');
  }
  if (!document.redirect_uris.every(isAcceptableRedirectUri)) {
    throw new MetadataDocumentRefused(
      'redirect_uris',
      'lists a redirect URI that is not acceptable: http://127.0.0.1 or http://[::1] (any port), or https:// without user info; no fragment',
    );
  }
  return {
    metadata: { clientId, name: sanitiseClientName(document.client_name), redirectUris: document.redirect_uris },
    cacheControl,
  };
}

/**
 * README (cache bounds): how long a fetched document is used, from its Cache-Control: `max-age`
 * clamped to [60 s, 24 h]; `no-store`, `no-cache` and `max-age=0` get the minimum (a client
 * cannot make us fetch on every request); without either, 1 hour.
 */
export function cacheSeconds(cacheControl: string | undefined): number {
  const directives = (cacheControl ?? '').toLowerCase().split(',').map((d) => d.trim());
  if (directives.includes('no-store') || directives.includes('no-cache')) return CACHE_MIN_SECONDS;
  const maxAge = directives.map((d) => /^max-age\s*=\s*"?(\d+)"?$/.exec(d)).find(Boolean);
  if (!maxAge) return CACHE_DEFAULT_SECONDS;
  return Math.min(CACHE_MAX_SECONDS, Math.max(CACHE_MIN_SECONDS, Number(maxAge[1])));
}

export interface MetadataDocumentsOptions extends FetchOptions {
  log?: Logger;
  /** The cache's clock in milliseconds; tests move it past an expiry. */
  now?: () => number;
}

interface CacheEntry {
  expiresAt: number;
  outcome: ClientMetadata | MetadataDocumentRefused;
}

/** D18's answer to any refusal: 401 invalid_client in the OAuth shape. */
function invalidClient(refusal: MetadataDocumentRefused): OAuthError {
  return new OAuthError('invalid_client', refusal.message, 401);
}

/**
 * The documents this process has fetched, kept in memory (not security state: every instance
 * keeps its own): at most 1,000, the least recently used going first, each until its Cache-Control
 * says (see cacheSeconds). So a document that changes its redirect URIs takes effect here only once
 * the copy in the cache expires. A refusal is kept 30 s, so a slow or broken host costs one fetch
 * per 30 s, and parallel lookups of one URL share a single fetch.
 */
export class ClientMetadataDocuments {
  readonly #entries = new Map<string, CacheEntry>();
  readonly #inFlight = new Map<string, Promise<ClientMetadata>>();
  readonly #now: () => number;

  constructor(private readonly options: MetadataDocumentsOptions) {
    this.#now = options.now ?? Date.now;
  }

  /**
   * The client `clientId` names, from the cache or fetched now (`fresh`: this call fetched it).
   * Throws OAuthError invalid_client (401) for every refusal (D18).
   */
  async resolve(clientId: string): Promise<{ metadata: ClientMetadata; fresh: boolean }> {
    const cached = this.#entries.get(clientId);
    if (cached && cached.expiresAt > this.#now()) {
      // Map order is insertion order: re-inserting makes this the most recently used entry.
      this.#entries.delete(clientId);
      this.#entries.set(clientId, cached);
      if (cached.outcome instanceof MetadataDocumentRefused) throw invalidClient(cached.outcome);
      return { metadata: cached.outcome, fresh: false };
    }
    const pending = this.#inFlight.get(clientId);
    if (pending) return { metadata: await pending.catch((e: MetadataDocumentRefused) => Promise.reject(invalidClient(e))), fresh: false };
    try {
      parseMetadataDocumentUrl(clientId);
    } catch (error) {
      throw invalidClient(error as MetadataDocumentRefused);
    }
    if (this.#inFlight.size >= MAX_FETCHES_IN_FLIGHT) {
      throw invalidClient(new MetadataDocumentRefused('busy', 'could not be fetched now; try again shortly'));
    }
    const fetching = this.#fetch(clientId);
    this.#inFlight.set(clientId, fetching);
    try {
      return { metadata: await fetching, fresh: true };
    } catch (error) {
      throw invalidClient(error as MetadataDocumentRefused);
    } finally {
      this.#inFlight.delete(clientId);
    }
  }

  async #fetch(clientId: string): Promise<ClientMetadata> {
    try {
      const { metadata, cacheControl } = await fetchClientMetadataDocument(clientId, this.options);
      this.#remember(clientId, metadata, cacheSeconds(cacheControl));
      return metadata;
    } catch (error) {
      const refusal = error instanceof MetadataDocumentRefused ? error : new MetadataDocumentRefused(`fault (${(error as Error).name})`);
      this.options.log?.info('client metadata document refused', { host: new URL(clientId).host, reason: refusal.reason });
      this.#remember(clientId, refusal, CACHE_REFUSAL_SECONDS);
      throw refusal;
    }
  }

  #remember(clientId: string, outcome: CacheEntry['outcome'], seconds: number): void {
    this.#entries.delete(clientId);
    this.#entries.set(clientId, { outcome, expiresAt: this.#now() + seconds * 1000 });
    while (this.#entries.size > CACHE_MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!);
  }
}
