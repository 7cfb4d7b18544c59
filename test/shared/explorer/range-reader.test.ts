/**
 * The merge of ranges (range-reader.ts readRanges: X1's gsi3 range of each standard, two type-set
 * ranges of X2 / X3, E5's two directions) orders sort keys as DynamoDB does, by their UTF-8 bytes. X1 sort keys carry token names, and JavaScript's `<` (UTF-16 code units) puts
 * U+E000-U+FFFF after the characters above U+FFFF, where UTF-8 puts them before. Balances are written
 * by the ingest's own StateWriter into the embedded DynamoDB and read through the route table, as a
 * client pages E1. Endpoint and range ids: see docs/access-patterns.md.
 */
import { getAddress, keccak256, toBytes } from 'viem';
import { describe, expect, it } from 'vitest';
import { requestJson } from '../../../scripts/lib/dispatch';
import { measureTable, type TableUsage } from '../../../shared/db/instrument';
import { writeItems } from '../../../shared/db/operations';
import { addressKeys, tokenTransferKeys } from '../../../shared/table/keys';
import { DEFAULT_EXPLORER_CHAIN_ID, PAGE_SIZE } from '../../../shared/explorer/config';
import { compareSortKeys } from '../../../shared/table/keys';
import type { IndexedTokenStandard } from '../../../shared/table/records';
import { StateWriter } from '../../../shared/ingest/state';
import { useTestTable } from '../../support/table';

useTestTable('explorer-queries');

const CHAIN_ID = DEFAULT_EXPLORER_CHAIN_ID;
const address = (label: string): string => keccak256(toBytes(`explorer queries: ${label}`)).slice(0, 42);
/** U+FF5E (UTF-8 EF BD 9E) and U+1F600 (UTF-8 F0 9F 98 80; UTF-16 D83D DE00): the two orders disagree. */
const FULLWIDTH_TILDE = '\uFF5E';
const GRINNING_FACE = '\u{1F600}';

describe('compareSortKeys', () => {
  it('orders by UTF-8 bytes where UTF-16 code units disagree', () => {
    expect(GRINNING_FACE < FULLWIDTH_TILDE).toBe(true); // JavaScript's order
    expect(compareSortKeys(FULLWIDTH_TILDE, GRINNING_FACE)).toBeLessThan(0);
    expect(compareSortKeys(GRINNING_FACE, FULLWIDTH_TILDE)).toBeGreaterThan(0);
    const key = (name: string) => addressKeys.balanceByValueSortKey(7n, 'ERC-20', name, address('t'), null);
    expect(compareSortKeys(key(`a${FULLWIDTH_TILDE}`), key(`a${GRINNING_FACE}`))).toBeLessThan(0);
    expect(compareSortKeys(key('\uE000'), key('\u{10000}'))).toBeLessThan(0);
    expect(compareSortKeys(key('same'), key('same'))).toBe(0);
  });

  it('orders any two strings as their UTF-8 bytes do (surrogate pairs, lone surrogates, U+E000-U+FFFF, prefixes)', () => {
    // Units drawn where the orders disagree or encoding changes: ASCII, 2- and 3-byte BMP, the top of the
    // BMP, both halves of surrogate pairs (so pairs, lone halves and reversed halves all occur).
    const units = [0x23, 0x30, 0x7e, 0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xd83d, 0xdbff, 0xdc00, 0xde00, 0xdfff, 0xe000, 0xff5e, 0xffff];
    let seed = 7;
    const next = (bound: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % bound;
    };
    const word = () => String.fromCharCode(...Array.from({ length: next(6) }, () => units[next(units.length)]!));
    const bytes = (a: string, b: string) => Math.sign(Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
    for (let round = 0; round < 20_000; round += 1) {
      const shared = word();
      const a = shared + word();
      const b = next(4) === 0 ? a : shared + word();
      expect([a, b, Math.sign(compareSortKeys(a, b))]).toEqual([a, b, bytes(a, b)]);
    }
  });

  it('agrees with < on ASCII keys (token transfers)', () => {
    const keys = [
      tokenTransferKeys.sortKey(10, 2, 0),
      tokenTransferKeys.sortKey(10, 2, 1),
      tokenTransferKeys.sortKey(9, 300, 0),
      addressKeys.balanceByValueSortKey(5n, 'ERC-721', 'Demo NFT', address('n'), null),
      addressKeys.balanceByValueSortKey(5n, 'ERC-20', 'Demo Token', address('d'), null),
    ];
    for (const a of keys) for (const b of keys) expect(Math.sign(compareSortKeys(a, b))).toBe(a < b ? -1 : a > b ? 1 : 0);
  });
});

describe("E1: the standards' gsi3 ranges merged in DynamoDB order", () => {
  const holder = address('holder');
  const names = [
    FULLWIDTH_TILDE,
    GRINNING_FACE,
    '\uE000',
    '\u{10000}',
    'A',
    'z',
    '\u00E9',
    '\uFFFD',
    '\u{1F4A9}',
    `x${FULLWIDTH_TILDE}`,
    `x${GRINNING_FACE}`,
    '',
  ];
  interface Balance {
    token: string;
    standard: IndexedTokenStandard;
    name: string;
    value: bigint;
    tokenId: bigint | null;
  }
  const balances: Balance[] = [];
  // ERC-20 and ERC-721 tokens: one of each name with value 7 (their order then comes from type and
  // name), the others on distinct values: more than a page of the two standards. ERC-1155 ids the
  // filter leaves out.
  for (let i = 0; i < 36; i += 1) {
    balances.push({
      token: address(`erc20 ${i}`),
      standard: 'ERC-20',
      name: i < names.length ? names[i] : `token ${i}`,
      value: i < names.length ? 7n : BigInt(i),
      tokenId: null,
    });
  }
  for (let i = 0; i < 24; i += 1) {
    balances.push({
      token: address(`erc721 ${i}`),
      standard: 'ERC-721',
      name: i < names.length ? names[(i + 5) % names.length] : `nft ${i}`,
      value: i < names.length ? 7n : BigInt(i),
      tokenId: null,
    });
  }
  const multi = address('erc1155');
  for (let id = 1n; id <= 6n; id += 1n)
    balances.push({ token: multi, standard: 'ERC-1155', name: 'Multi', value: id === 3n ? 7n : id * 5n, tokenId: id });

  async function write(): Promise<void> {
    const state = new StateWriter(CHAIN_ID);
    for (const token of new Map(balances.map((b) => [b.token, b])).values()) {
      await state.updateAddress(
        {
          address: token.token,
          token: {
            type: token.standard,
            name: token.name,
            symbol: null,
            decimals: token.standard === 'ERC-20' ? 18 : null,
            totalSupply: null,
          },
        },
        1,
      );
    }
    for (const b of balances)
      await state.setBalance({ holder, token: b.token, standard: b.standard, tokenId: b.tokenId }, b.value, 1, b.name);
  }

  async function pages(type?: string): Promise<{ items: any[]; calls: TableUsage['calls'] }[]> {
    const result: { items: any[]; calls: TableUsage['calls'] }[] = [];
    let next: Record<string, unknown> | null = {};
    while (next) {
      const search = new URLSearchParams();
      for (const [key, value] of Object.entries({ ...(type ? { type } : {}), ...next }))
        if (value !== null && value !== undefined) search.append(key, String(value));
      const { result: response, usage } = await measureTable(() =>
        requestJson('base', 'GET', `/explorer/addresses/${getAddress(holder)}/tokens?${search}`),
      );
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      result.push({ items: response.body.items, calls: usage.calls });
      if (result.length > 10) throw new Error('the cursor does not advance');
      next = response.body.next_page_params;
    }
    return result;
  }

  const keyOf = (item: any): string => `${item.token.address.toLowerCase()}|${item.token_id}|${item.value}`;

  it('pages every standard, and type=ERC-20,ERC-721, in sort-key order (UTF-8 bytes, descending), one Query a standard a page', async () => {
    await write();
    const everyPage = await pages();
    expect(everyPage.length).toBeGreaterThan(1);
    // (The first request of the file also reads the chain's status: Queries only.)
    for (const page of everyPage) expect(page.calls.QueryCommand).toBe(3);
    const all = everyPage.flatMap((page) => page.items);
    // The order the balances' own sort keys give, computed apart from any range.
    const sortKeyOf = (b: Balance) => addressKeys.balanceByValueSortKey(b.value, b.standard, b.name, b.token, b.tokenId);
    const expected = [...balances].sort((a, b) => compareSortKeys(sortKeyOf(b), sortKeyOf(a)));
    expect(all.map(keyOf)).toEqual(expected.map((b) => `${b.token}|${b.tokenId}|${b.value}`));
    // DynamoDB's order: at one value and type, names by UTF-8 bytes descending.
    const at7 = all.filter((item) => item.value === '7' && item.token.type === 'ERC-20').map((item) => item.token.name);
    expect(at7.indexOf(GRINNING_FACE)).toBeLessThan(at7.indexOf(FULLWIDTH_TILDE));
    expect(at7.indexOf(`x${GRINNING_FACE}`)).toBeLessThan(at7.indexOf(`x${FULLWIDTH_TILDE}`));

    const want = all.filter((item) => item.token.type === 'ERC-20' || item.token.type === 'ERC-721').map(keyOf);
    expect(want.length).toBeGreaterThan(PAGE_SIZE);
    for (const type of ['ERC-20,ERC-721', '[erc-721,ERC-20]']) {
      const two = await pages(type);
      expect(two.length).toBeGreaterThan(1);
      const got = two.flatMap((page) => page.items).map(keyOf);
      expect(got, type).toEqual(want);
      for (const page of two) {
        expect(page.items.length).toBeLessThanOrEqual(PAGE_SIZE);
        expect(page.calls).toEqual({ QueryCommand: 2, BatchGetItemCommand: 1 });
      }
    }
    // One standard: one range, one Query a page; all three named: as no type, three.
    for (const [type, standards] of [
      ['ERC-721', ['ERC-721']],
      ['ERC-20,ERC-721,ERC-1155', ['ERC-20', 'ERC-721', 'ERC-1155']],
    ] as const) {
      const one = await pages(type);
      expect(one.flatMap((page) => page.items).map(keyOf)).toEqual(
        all.filter((item) => (standards as readonly string[]).includes(item.token.type)).map(keyOf),
      );
      for (const page of one) expect(page.calls.QueryCommand).toBe(standards.length);
    }
  });
});

describe('E5 without a filter: the `to` and `from` ranges merged, a self-call once', () => {
  const wallet = address('self-caller');
  const other = address('counterparty');

  it('serves every internal transaction of both ranges once, newest first, and pages with the keyset cursor', async () => {
    // 60 internal transactions: every third a self-call (one entry in each range), the rest in or out.
    const entries = Array.from({ length: 60 }, (_, index) => {
      const kind = index % 3 === 0 ? 'self' : index % 3 === 1 ? 'in' : 'out';
      const sk = addressKeys.internalTransactionSortKey(100 + index, 0, 1);
      const record = {
        kind: 'internalTransaction',
        chainId: CHAIN_ID,
        transactionHash: keccak256(toBytes(`tx ${index}`)),
        blockNumber: 100 + index,
        transactionIndex: 0,
        index: 1,
        from: kind === 'in' ? other : wallet,
        to: kind === 'out' ? other : wallet,
        value: '0',
        type: 'call',
        callType: 'call',
        createdContract: null,
        gasLimit: '50000',
        gasUsed: '21000',
        success: true,
        error: null,
        traceAddress: [0],
        blockHash: keccak256(toBytes(`block ${index}`)),
        blockTimestamp: 1_759_276_800 + index,
      };
      return { kind, sk, record };
    });
    await writeItems({
      put: entries.flatMap(({ kind, sk, record }) => [
        ...(kind !== 'in' ? [{ ...record, pk: addressKeys.internalTransactions(CHAIN_ID, wallet, 'from').pk, sk }] : []),
        ...(kind !== 'out' ? [{ ...record, pk: addressKeys.internalTransactions(CHAIN_ID, wallet, 'to').pk, sk }] : []),
      ]),
    });
    const seen: number[] = [];
    let query = '';
    for (let page = 0; page < 3; page += 1) {
      const response = await requestJson('base', 'GET', `/explorer/addresses/${getAddress(wallet)}/internal-transactions${query}`);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      const body = response.body as { items: { block_number: number }[]; next_page_params: Record<string, number> | null };
      seen.push(...body.items.map((item) => item.block_number));
      if (!body.next_page_params) break;
      query = `?${new URLSearchParams(Object.entries(body.next_page_params).map(([k, v]) => [k, String(v)] as [string, string])).toString()}`;
    }
    expect(seen).toEqual(entries.map((_, index) => 100 + index).reverse());
  });
});
