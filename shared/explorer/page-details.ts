/**
 * X7 + X8 (see docs/access-patterns.md): every detail a page embeds (address and token items, NFT
 * instances with the metadata fetched for them from the web (G7, on the instance), canonical transactions, the ingest
 * cursor) in ONE BatchGetItem, more only past 100 keys
 * or when DynamoDB returns unprocessed keys (shared/db/operations.ts batchGetItems). Nothing to join:
 * no call at all.
 *
 * Address items (X7) and NFT instances (G3, with their fetched metadata) are kept per container for `detailsCacheMs`
 * (EXPLORER_DETAILS_CACHE_SECONDS, 30 s by default) and not asked for again meanwhile: a page of 50
 * token balances would otherwise pay half a read unit for each of its tokens and ERC-1155 ids, every
 * time (a BatchGetItem bills each item on its own, however small). What a page shows of them may be
 * up to that long behind the table: a token's `holders` and `total_supply`, an instance's supply
 * (`is_unique`), owner and metadata, and, rarely, a token's name, symbol or decimals (probed again by
 * the ingest) or an address item a reorg deleted (`is_contract`).
 * The canonical transactions and the cursor (confirmations) are always read; items not found are not
 * kept; what is kept is bounded by its size and evicted least recently used (shared/db/kept-items.ts).
 */
import { getItemsKept } from '../db/kept-items';
import type { Item, OnColdParts } from '../db/operations';
import { expandTransaction } from '../table/compact';
import { joinKeys, joinsOfAll, mergeJoins } from '../table/joins';
import { chainKeys, type ItemKey, keyId } from '../table/keys';
import { type AddressRecord, type CursorRecord, type NftInstanceRecord, isJoinedDetail, type TransactionRecord } from '../table/records';
import type { ExplorerConfig } from './config';
import { emptyDetails, instanceId, type PageDetails } from './serialise';

/** What a page needs joined to its items. */
export interface DetailsRequest {
  /** Addresses to embed (is_contract, name) and token contracts (token details). */
  addresses?: Iterable<string>;
  /** NFT instances (metadata) by contract and token id: their items (G3, with the metadata fetched for them). */
  instances?: Iterable<{ contract: string; tokenId: string }>;
  /** Canonical transactions, for index copies that left out their input. */
  transactions?: Iterable<string>;
  /** The ingest cursor (X8), for confirmations. */
  head?: boolean;
}

/** The keys of what `request` asks for. */
function keysOf(chainId: number, request: DetailsRequest): ItemKey[] {
  const joins = {
    addresses: [...(request.addresses ?? [])],
    instances: [...(request.instances ?? [])],
    transactions: [...(request.transactions ?? [])],
  };
  return [...joinKeys(chainId, joins), ...(request.head ? [chainKeys.cursor(chainId)] : [])];
}

/**
 * The details of a page that reaches cold history, read as its parts are (docs/decisions/cold-history.md,
 * "Cold pages in two round trips"). Each range read of the page tells `onColdParts` the table's entries,
 * and, when it reads cold parts, what their entries join (their pointers say: table/joins.ts). Once one
 * read reads parts, what the entries told so far join is asked for at once, beside the parts' GETs, and
 * so is what every later read's entries join. `readPageDetails` then reads only what the page needs
 * beyond them: nothing, unless a part's pointer named no joins (a part written before, or one block's
 * bucket joining more than COLD_PART_JOINS). A page none of whose reads reads parts asks for nothing
 * early: its details are read after its ranges, as before.
 */
export class EarlyDetails {
  private readonly reads: { keys: ItemKey[]; found: Promise<Map<string, Item>> }[] = [];
  /** Entries of reads that read no part, told before any read did. */
  private waiting: object[] = [];
  private started = false;

  constructor(
    private readonly config: ExplorerConfig,
    private readonly head = false,
  ) {}

  readonly onColdParts: OnColdParts = ({ hot, readsParts, joins }) => {
    if (!readsParts && !this.started) {
      this.waiting.push(...hot);
      return;
    }
    const entries = [...this.waiting, ...hot];
    this.waiting = [];
    const joined = mergeJoins([joinsOfAll(entries), ...(joins === undefined ? [] : [joins])]);
    const keys = keysOf(this.config.chainId, { ...joined, head: this.head && !this.started });
    this.started = true;
    if (keys.length === 0) return;
    const found = getItemsKept(keys, { keepMs: this.config.detailsCacheMs, keep: isJoinedDetail });
    // Awaited by read(); a page whose range read fails never gets there, and its failure is the one reported.
    found.catch(() => undefined);
    this.reads.push({ keys, found });
  };

  /** The keys asked for so far, by keyId, and the items found. */
  async read(): Promise<{ asked: Set<string>; found: Map<string, Item> }> {
    const asked = new Set<string>();
    const found = new Map<string, Item>();
    for (const read of this.reads) {
      for (const key of read.keys) asked.add(keyId(key));
      for (const [id, item] of await read.found) found.set(id, item);
    }
    return { asked, found };
  }
}

/** The details `request` asks for; with `early`, only those its reads did not ask for (read after them). */
export async function readPageDetails(config: ExplorerConfig, request: DetailsRequest, early?: EarlyDetails): Promise<PageDetails> {
  const details = emptyDetails(config.gateways);
  const before = await early?.read();
  const keys = keysOf(config.chainId, request).filter((key) => !before?.asked.has(keyId(key)));
  const found =
    keys.length === 0 ? new Map<string, Item>() : await getItemsKept(keys, { keepMs: config.detailsCacheMs, keep: isJoinedDetail });
  for (const item of [...(before?.found.values() ?? []), ...found.values()]) addDetail(details, item);
  return details;
}

function addDetail(details: PageDetails, item: Item): void {
  switch (item.kind) {
    case 'address': {
      const record = item as unknown as AddressRecord;
      details.addresses.set(record.address.toLowerCase(), record);
      break;
    }
    case 'nftInstance': {
      const record = item as unknown as NftInstanceRecord;
      details.instances.set(instanceId(record.contract, record.tokenId), record);
      break;
    }
    case 'transaction': {
      const record: TransactionRecord = expandTransaction(item);
      details.transactions.set(record.hash.toLowerCase(), record);
      break;
    }
    case 'cursor':
      details.head = (item as unknown as CursorRecord).blockNumber;
      break;
  }
}
