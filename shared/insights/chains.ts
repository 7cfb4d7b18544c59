/**
 * Which chains a request reads: `chain_id` (repeatable), the deprecated `chain`, or else the first
 * label of the Host header (`<chainId>.<host>`, as thirdweb's `1.insight.thirdweb.com`). At most 55;
 * none is a 400. Every chain must be indexed into this table (its registry item, written by the
 * ingest, exists), otherwise 404.
 *
 * The registry is one small partition (pk CHAINS, one item per chain). It is read with one Query and
 * kept in memory for CHAIN_REGISTRY_TTL_MS, so a warm function does not re-read it per request; a
 * requested chain that the cached copy lacks re-reads it (at most every CHAIN_REGISTRY_MISS_REFRESH_MS),
 * so a chain the ingest has just registered is served within seconds.
 */
import { tableName } from '../db/client';
import { queryAll, rangeQuery } from '../db/operations';
import { chainKeys } from '../table/keys';
import { InvalidRequestError, NotFoundError } from '../errors';
import { CHAIN_REGISTRY_MISS_REFRESH_MS, CHAIN_REGISTRY_TTL_MS, MAX_CHAINS } from './limits';

export interface ChainParameters {
  chain_id?: readonly number[];
  chain?: readonly number[];
}

/**
 * The chain of a Host header `<chainId>.<rest>`: a decimal first label followed by at least one
 * more label. IP literals (127.0.0.1) and single-label hosts (localhost) name no chain.
 */
export function chainOfHost(host: string | undefined): number | undefined {
  if (!host) return undefined;
  const name = host
    .trim()
    .toLowerCase()
    .replace(/:[0-9]+$/, '');
  if (/^[0-9.]+$/.test(name) || name.startsWith('[')) return undefined;
  const [first, second] = name.split('.');
  if (first === undefined || second === undefined || !/^[1-9][0-9]{0,15}$/.test(first)) return undefined;
  const chainId = Number(first);
  return Number.isSafeInteger(chainId) ? chainId : undefined;
}

/** The requested chains, in request order without repeats (parameters win over the Host header). */
export function requestedChains(query: ChainParameters, host: string | undefined): number[] {
  const given = [...(query.chain_id ?? []), ...(query.chain ?? [])];
  if (given.length > MAX_CHAINS) throw new InvalidRequestError(`chain_id: at most ${MAX_CHAINS} chains per request`);
  if (given.length === 0) {
    const fromHost = chainOfHost(host);
    if (fromHost === undefined)
      throw new InvalidRequestError('chain_id: at least one chain is required (chain_id=<id>, or a <chainId>. subdomain)');
    return [fromHost];
  }
  return [...new Set(given)];
}

let registry: { table: string; chains: Set<number>; namesOnChains: Set<number>; readAt: number } | undefined;

async function readRegistry(): Promise<{ chains: Set<number>; namesOnChains: Set<number> }> {
  const { items } = await queryAll<{ chainId: number; namesOnChains?: boolean }>(rangeQuery(chainKeys.registryRange()));
  return {
    chains: new Set(items.map((item) => Number(item.chainId))),
    namesOnChains: new Set(items.filter((item) => item.namesOnChains === true).map((item) => Number(item.chainId))),
  };
}

/**
 * Whether a chain keeps its names in the items across chains (chain registry `namesOnChains`, from the
 * cached registry every request checks its chains against): then a chain missing from a name's item
 * does not have the name.
 */
export function namesTrackedOnChains(chainId: number): boolean {
  return registry?.namesOnChains.has(chainId) ?? false;
}

/** The indexed chains, from memory while fresh. */
export async function indexedChains(requested: readonly number[]): Promise<Set<number>> {
  const now = Date.now();
  const table = tableName();
  const cached = registry?.table === table ? registry : undefined;
  const fresh = cached && now - cached.readAt < CHAIN_REGISTRY_TTL_MS;
  const missing = cached && requested.some((chainId) => !cached.chains.has(chainId));
  if (cached && fresh && (!missing || now - cached.readAt < CHAIN_REGISTRY_MISS_REFRESH_MS)) return cached.chains;
  const read = await readRegistry();
  registry = { table, ...read, readAt: now };
  return read.chains;
}

/** Throws 404 naming every requested chain this table does not index. */
export async function assertChainsIndexed(chainIds: readonly number[]): Promise<void> {
  const indexed = await indexedChains(chainIds);
  const unknown = chainIds.filter((chainId) => !indexed.has(chainId));
  if (unknown.length > 0) {
    throw new NotFoundError(`chain ${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not indexed by this service`);
  }
}

/** The chains of a request, checked: 400 for none or too many, 404 for an unindexed one. */
export async function selectChains(query: ChainParameters, host: string | undefined): Promise<number[]> {
  const chainIds = requestedChains(query, host);
  await assertChainsIndexed(chainIds);
  return chainIds;
}

/** Forgets the cached registry (tests that register chains during a run). */
export function forgetChainRegistry(): void {
  registry = undefined;
}
