/**
 * The address items (X7: token details, contract flags) and NFT instances an explorer page joins
 * are kept by the container for EXPLORER_DETAILS_CACHE_SECONDS (shared/explorer/page-details.ts): the next pages that
 * show the same tokens read only their own range. What that costs a user: a token's `holders` (and
 * `total_supply`) may be behind the table for that long; balances, which come from the page's own
 * Query, never are.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { getAddress, keccak256, toBytes, type Address } from 'viem';
import { explorerGet, lower, useExplorerChain } from './fixtures';

// Before the handler modules load (the dispatcher imports them on first request): the tests' default is 0.
// The longest allowed: the test's own steps (a transaction, an ingest, pages) never outlast it.
const CACHE_SECONDS = 3600;
process.env.EXPLORER_DETAILS_CACHE_SECONDS = String(CACHE_SECONDS);

const chain = useExplorerChain('explorer-details-cache');
const newHolder: Address = getAddress(keccak256(toBytes('details cache: new holder')).slice(0, 42));

interface Balance {
  value: string;
  token: { address: string; holders: string; holders_count: string; name: string | null; symbol: string | null };
}

const demoTokenOf = (items: Balance[]): Balance | undefined =>
  items.find((item) => lower(item.token.address) === lower(chain.manifest.contracts.token));

describe('explorer pages keep the token details they joined', () => {
  let alice: Address;
  beforeAll(() => {
    alice = chain.manifest.accounts.alice;
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reads the token details once, serves them again without a BatchGetItem, and reads them again once they expire', async () => {
    const first = await explorerGet<Balance>(alice, 'tokens', { type: 'ERC-20' });
    expect(first.status).toBe(200);
    const before = demoTokenOf(first.body.items)!;
    expect(before, 'alice holds the demo token').toBeDefined();
    expect(first.calls).toEqual({ QueryCommand: 1, BatchGetItemCommand: 1 });

    // A new holder of the demo token: its holders count moves on, and so does alice's balance.
    await chain.send('alice', {
      to: chain.manifest.contracts.token,
      abi: chain.artifacts.DemoToken.abi,
      functionName: 'transfer',
      args: [newHolder, 1n],
    });
    await chain.ingest();

    const kept = await explorerGet<Balance>(alice, 'tokens', { type: 'ERC-20' });
    expect(kept.status).toBe(200);
    expect(kept.calls, 'the page read only its range').toEqual({ QueryCommand: 1 });
    const keptToken = demoTokenOf(kept.body.items)!;
    expect(BigInt(keptToken.value), 'the balance is read from the table at once').toBe(BigInt(before.value) - 1n);
    expect(keptToken.token, 'the token details are the kept ones (holders not yet moved on)').toEqual(before.token);

    // Another holder's page of the same token reuses them too.
    const otherHolder = Object.keys(chain.manifest.expected.tokenBalances).find(
      (holder) => lower(holder) !== lower(alice) && BigInt(chain.manifest.expected.tokenBalances[holder as Address]) > 0n,
    ) as Address;
    const other = await explorerGet<Balance>(otherHolder, 'tokens', { type: 'ERC-20' });
    expect(other.status).toBe(200);
    expect(demoTokenOf(other.body.items)?.token).toEqual(before.token);
    expect(other.calls).toEqual({ QueryCommand: 1 });

    // Past the time they are kept: read again, with the new holder counted.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + (CACHE_SECONDS + 1) * 1000 });
    const later = await explorerGet<Balance>(alice, 'tokens', { type: 'ERC-20' });
    expect(later.status).toBe(200);
    expect(later.calls).toEqual({ QueryCommand: 1, BatchGetItemCommand: 1 });
    const laterToken = demoTokenOf(later.body.items)!;
    expect(Number(laterToken.token.holders)).toBe(Number(before.token.holders) + 1);
    expect(laterToken.token.holders_count).toBe(laterToken.token.holders);
    expect({ ...laterToken.token, holders: before.token.holders, holders_count: before.token.holders }).toEqual(before.token);
  });

  it('keeps the NFT instances of ERC-1155 balances too: the next page of the same ids reads only its range', async () => {
    const holder = chain.manifest.highlights.batchTransfer.to;
    const first = await explorerGet(holder, 'tokens', { type: 'ERC-1155' });
    expect(first.status).toBe(200);
    expect(first.body.items.length, 'the batch receiver holds ERC-1155 ids').toBeGreaterThan(0);
    expect(first.body.items.every((item) => item.token_instance !== null)).toBe(true);
    const again = await explorerGet(holder, 'tokens', { type: 'ERC-1155' });
    expect(again.body).toEqual(first.body);
    expect(again.calls, 'token and instances kept').toEqual({ QueryCommand: 1 });
  });
});
