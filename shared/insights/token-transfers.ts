/**
 * I5: token transfers, on each requested chain.
 *  - I5a by owner (N9): the owner's range for the direction the transfer type implies (mint: `to`,
 *    burn: `from`, otherwise `all`) and the token types (ALL, or one standard's range; two standards
 *    read both single-standard ranges, merged by sort key in list.ts), or with a contract the owner's
 *    range in that token; by contract only (N8): the token's range.
 *  - I5b by transaction (N10): the transaction's transfers, by log index (ascending by default).
 *  - I5c by contract (N8).
 * Block bounds are the key condition (timestamps through the block-by-time index). What has no range
 * of its own is a bounded check inside the narrowed range: the transfer type (after the direction
 * narrowed it) and, where the range holds a single token or transaction, the token type
 * (docs/decisions/insights.md).
 * Ids of endpoints and access patterns (I1, N9, ...): see docs/access-patterns.md.
 */
import { batchGetItems } from '../db/operations';
import { expandTokenTransfer } from '../table/compact';
import { addressKeys, keyId, type Direction, type TokenStandard } from '../table/keys';
import { InvalidRequestError } from '../errors';
import type { AddressRecord, TokenTransferRecord, TransferType } from '../table/records';
import { blockRangeOf } from './block-range';
import type { InsightsConfig } from './config';
import { TOKEN_TRANSFER_FIELDS } from './fields';
import { readList, type ChainRanges, type ListPlan } from './list';
import { parseAddressOrName, resolveAddresses, type AddressOrName } from './names';
import {
  tokenTransfersOfOwnerInTokenRanges,
  tokenTransfersOfOwnerRanges,
  tokenTransfersOfTokenRange,
  tokenTransfersOfTransactionRange,
} from './queries';
import type { Check } from './range-reader';
import { firstChain, planListRequest, type ListQuery } from './request';
import type { InsightsTokenTransfer, TokenTransferMeta, TokenTransfersResponse, TokenTypeName } from './schemas';
import { serialiseTokenTransfer } from './serialise';

const STANDARD: Record<TokenTypeName, TokenStandard> = { erc20: 'ERC-20', erc721: 'ERC-721', erc1155: 'ERC-1155' };

/** The parameters shared by the three endpoints (those an endpoint lacks are absent). */
export interface TransferQuery extends ListQuery {
  metadata: boolean;
  include_owners: boolean;
  token_types: TokenTypeName[];
  block_number_from?: number;
  block_number_to?: number;
  block_timestamp_from?: number;
  block_timestamp_to?: number;
  transfer_type?: TransferType;
}

/** A request of one of the three endpoints: its query and the Host header (whose first label may name the chain). */
export interface TransfersRequest<Q extends TransferQuery = TransferQuery> {
  query: Q;
  host: string | undefined;
}

/** I5a: by owner and / or contract (query parameters; names accepted). */
export async function listTokenTransfers(
  { query, host }: TransfersRequest<TransferQuery & { owner_address?: string; contract_address?: readonly string[] }>,
  config: InsightsConfig,
): Promise<TokenTransfersResponse> {
  const owner = query.owner_address !== undefined ? parseAddressOrName('owner_address', query.owner_address) : undefined;
  const contracts = (query.contract_address ?? []).map((value) => parseAddressOrName('contract_address', value));
  if (!owner && contracts.length === 0) throw new InvalidRequestError('owner_address or contract_address is required (or both)');
  return transfersOf({ query, host }, config, { owner, contracts });
}

/** I5c: by contract (path parameter; a name accepted). */
export async function listContractTokenTransfers(
  request: TransfersRequest & { contractAddress: string },
  config: InsightsConfig,
): Promise<TokenTransfersResponse> {
  return transfersOf(request, config, { contracts: [parseAddressOrName('contract_address', request.contractAddress)] });
}

/** I5b: the transfers of one transaction, by log index. */
export async function listTransactionTokenTransfers(
  { transactionHash, query, host }: TransfersRequest & { transactionHash: string },
  config: InsightsConfig,
): Promise<TokenTransfersResponse> {
  const plan = await planListRequest(query, host, TOKEN_TRANSFER_FIELDS);
  const checks = tokenTypeChecks(query.token_types);
  return respond(
    plan,
    query,
    config,
    async (chainId) => tokenTransfersOfTransactionRange(chainId, transactionHash, checks, plan.sortOrder),
    '',
  );
}

async function transfersOf(
  { query, host }: TransfersRequest,
  config: InsightsConfig,
  given: { owner?: AddressOrName; contracts: readonly AddressOrName[] },
): Promise<TokenTransfersResponse> {
  const plan = await planListRequest(query, host, TOKEN_TRANSFER_FIELDS);
  const resolved = await resolveAddresses(
    {
      owner_address: given.owner,
      ...Object.fromEntries(given.contracts.map((contract, i) => [i === 0 ? 'contract_address' : `contract_address[${i}]`, contract])),
    },
    plan.chainIds,
  );
  const owners = resolved.owner_address;
  /** Per chain, the distinct token addresses the request names (each one a range; several are merged by sort key). */
  const contracts = new Map(
    plan.chainIds.map((chainId) => [
      chainId,
      [
        ...new Set(
          Object.entries(resolved)
            .filter(([parameter]) => parameter.startsWith('contract_address'))
            .map(([, byChain]) => byChain?.get(chainId))
            .filter((address): address is string => address !== undefined),
        ),
      ],
    ]),
  );
  const rangeOf = async (chainId: number): Promise<ChainRanges> => {
    const blocks = await blockRangeOf(chainId, {
      numbers: { min: query.block_number_from, max: query.block_number_to, empty: isEmpty(query.block_number_from, query.block_number_to) },
      timestamps: {
        min: query.block_timestamp_from,
        max: query.block_timestamp_to,
        empty: isEmpty(query.block_timestamp_from, query.block_timestamp_to),
      },
    });
    if (!blocks) return null;
    const owner = owners?.get(chainId);
    const tokens = contracts.get(chainId) ?? [];
    if (owner) {
      const { direction, checks } = ownerDirection(query.transfer_type);
      // Per token, the ranges of the standards asked for (the key carries the token's standard).
      return tokens.length > 0
        ? tokens.flatMap((token) =>
            tokenTransfersOfOwnerInTokenRanges(
              chainId,
              owner,
              direction,
              token,
              query.token_types.map((type) => STANDARD[type]),
              blocks,
              checks,
              plan.sortOrder,
            ),
          )
        : tokenTransfersOfOwnerRanges(
            chainId,
            owner,
            direction,
            query.token_types.map((type) => STANDARD[type]),
            blocks,
            checks,
            plan.sortOrder,
          );
    }
    const checks = [...transferTypeChecks(query.transfer_type), ...tokenTypeChecks(query.token_types)];
    return tokens.map((token) => tokenTransfersOfTokenRange(chainId, token, blocks, checks, plan.sortOrder));
  };
  const first = firstChain(plan);
  return respond(plan, query, config, rangeOf, owners?.get(first) ?? contracts.get(first)?.[0] ?? '');
}

const isEmpty = (min: number | undefined, max: number | undefined): boolean => min !== undefined && max !== undefined && min > max;

/**
 * The owner's range for a transfer type: a mint reaches the owner (its `to` range), a burn leaves it
 * (its `from` range); the record's transferType is then checked inside that range (a plain transfer
 * reads the `all` range). The zero address itself has no range (the ingest does not index it).
 */
function ownerDirection(type: TransferType | undefined): { direction: Direction; checks: Check[] } {
  if (type === 'mint') return { direction: 'to', checks: transferTypeChecks('mint') };
  if (type === 'burn') return { direction: 'from', checks: transferTypeChecks('burn') };
  return { direction: 'all', checks: transferTypeChecks(type) };
}

function transferTypeChecks(type: TransferType | undefined): Check[] {
  if (type === undefined) return [];
  return [{ attribute: 'transferType', operator: '=', value: type, kind: 'string' }];
}

/** A token-type filter on a range that has no type-set key of its own (one token, one transaction). */
function tokenTypeChecks(types: readonly TokenTypeName[]): Check[] {
  if (types.length === 0 || types.length === Object.keys(STANDARD).length) return [];
  return [{ attribute: 'tokenStandard', operator: 'in', value: types.map((type) => STANDARD[type]), kind: 'string' }];
}

async function respond(
  plan: ListPlan,
  query: TransferQuery,
  config: InsightsConfig,
  rangeForChain: (chainId: number) => Promise<ChainRanges>,
  address: string,
): Promise<TokenTransfersResponse> {
  const meta = (chains: { total_items: number; total_pages: number }): TokenTransferMeta => ({
    chain_id: firstChain(plan),
    chain_ids: plan.chainIds,
    address,
    signature: '',
    page: plan.page,
    limit: plan.limit,
    ...chains,
  });
  const list = await readList<TokenTransferRecord>(plan, rangeForChain, config, {
    summed: { amount: 'amount' },
    fields: TOKEN_TRANSFER_FIELDS,
    // Items store compacted records (shared/table/compact.ts).
    row: (item) => serialiseTokenTransfer(expandTokenTransfer(item)),
    position: (item) => {
      const transfer = expandTokenTransfer(item);
      return [transfer.blockNumber, transfer.logIndex, transfer.batchIndex];
    },
  });
  if (list.aggregations) return { meta: meta(list.totals), data: [], aggregations: list.aggregations };
  const rows = list.records
    .map((item): TokenTransferRecord => expandTokenTransfer(item))
    .map((record) => ({ record, row: serialiseTokenTransfer(record) }));
  if (query.metadata) await addTokenMetadata(rows);
  return { meta: meta(list.totals), data: rows.map(({ row }) => row), aggregations: null };
}

/** token_metadata from the token contracts' address items (X7): one BatchGetItem for the page. */
async function addTokenMetadata(rows: readonly { record: TokenTransferRecord; row: InsightsTokenTransfer }[]): Promise<void> {
  const key = (record: TokenTransferRecord) => addressKeys.address(record.chainId, record.token);
  const items = rows.length > 0 ? await batchGetItems(rows.map(({ record }) => key(record))) : new Map();
  for (const { record, row } of rows) {
    const token = items.get(keyId(key(record))) as AddressRecord | undefined;
    row.token_metadata = {
      name: token?.tokenName ?? null,
      symbol: token?.tokenSymbol ?? null,
      decimals: token?.tokenDecimals ?? null,
    };
  }
}
