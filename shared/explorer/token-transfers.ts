/**
 * E3: token transfers touching an address, by `type`, `filter` and `token`, read from the X3 ranges
 * and joined with X7 (see docs/access-patterns.md).
 */
import { getAddress } from 'viem';
import { expandTokenTransfer } from '../table/compact';
import { standardsToRead, tokenTransferKeys, typeSetsToRead, type Direction, type TokenStandard } from '../table/keys';
import type { TokenTransferRecord } from '../table/records';
import { PAGE_SIZE, type ExplorerConfig } from './config';
import { echoFilter, tokenTransferCursor, tokenTransferStart } from './cursor';
import { measured } from './page-cost';
import { EarlyDetails, readPageDetails } from './page-details';
import { joinsOfRecords } from '../table/joins';
import { directionOf, readRanges, type KeysetStart } from './range-reader';
import type { AddressRequest, TokenTransfersQuery, TokenTransfersResponse } from './schemas';
import { tokenTransferItem } from './serialise';

interface TokenTransferFilter {
  direction: Direction;
  types: TokenStandard[] | undefined;
  token: string | undefined;
}

/**
 * X3: token transfers touching an address, block desc then log index desc (batches flattened). With a
 * token: the (direction, token, standard) ranges of the standards `type` asks for (standardsToRead:
 * the token's range holds its one standard, so a standard it does not have reads an empty range,
 * no item; without `type`, all three, two of them empty). Else the (direction, type set) ranges of
 * typeSetsToRead: ALL or one standard's range (one Query), or for two standards both
 * single-standard ranges merged (two Queries).
 */
function readTokenTransfers(chainId: number, address: string, filter: TokenTransferFilter, start: KeysetStart, early: EarlyDetails) {
  const token = filter.token;
  const pks = token
    ? standardsToRead(filter.types).map(
        (standard) => tokenTransferKeys.byAddressAndToken(chainId, address, filter.direction, token, standard).pk,
      )
    : typeSetsToRead(filter.types).map((typeSet) => tokenTransferKeys.byAddress(chainId, address, filter.direction, typeSet).pk);
  return readRanges<TokenTransferRecord>(pks, start, 'newest first', undefined, early.onColdParts);
}

/**
 * A two-standard `type` reads both standards' ranges and merges them; the cursor is the last transfer
 * served, whichever range it came from, and bounds both ranges on the next page. With both `token`
 * and `type`, only the token's ranges of the standards asked for are read: when the token's standard
 * is not among them, they are empty and the answer is an empty page with a null cursor.
 */
export function listTokenTransfers(
  { address, query }: AddressRequest<TokenTransfersQuery>,
  config: ExplorerConfig,
): Promise<TokenTransfersResponse> {
  return measured('token-transfers', async () => {
    const filter = { direction: directionOf(query.filter), types: query.type, token: query.token };
    const early = new EarlyDetails(config);
    const read = await readTokenTransfers(config.chainId, address, filter, tokenTransferStart(query), early);
    // Items store compacted records (shared/table/compact.ts).
    const page = read.items.slice(0, PAGE_SIZE).map((item) => expandTokenTransfer(item));
    // The token always has an address item (it emitted the log); a side only when the copy flags it.
    // NFT transfers show their instance (Blockscout v2's `total.token_instance`): the ingest writes an
    // instance item for every NFT id a transfer moves, so the key exists; same BatchGetItem (table/joins.ts).
    const details = await readPageDetails(config, joinsOfRecords(page), early);
    const last = page.at(-1);
    return {
      items: page.map((transfer) => tokenTransferItem(transfer, details)),
      next_page_params:
        read.more && last
          ? {
              ...tokenTransferCursor(last),
              items_count: (query.items_count ?? 0) + page.length,
              ...echoFilter(query.filter),
              ...(query.token ? { token: getAddress(query.token) } : {}),
            }
          : null,
    };
  });
}
