/**
 * How many distinct index ranges a transaction's entries fall in, by window of blocks, on the Base
 * profile's generator (the cold tier's pointers: one per range and day of cold history, see
 * docs/decisions/cold-history.md). Reads the generator's blocks through the ingest's own fetch, derive
 * and item building (no table): `npx tsx scripts/bench/range-spread.ts [--blocks 600]`.
 * The generator's population is a few minutes of Base (50,000 addresses, 2,000 tokens): past that the
 * figures fall faster than a day of Base's would.
 *
 * Also what the joins bound (shared/ingest/cold-history.ts COLD_PART_JOINS) adds to the pointers of the
 * explorer's ranges (table/joins.ts rangeCarriesJoins) were the window one span: a range's part is cut
 * before a block whose entries would take its joins past the bound (the compactor cuts at a block's
 * bucket), and a block past it alone makes a part that names none.
 */
import { parseArgs } from 'node:util';
import { BaseChain } from './dataset/base-profile';
import { baseProfileSpec } from './dataset/spec';
import { DEFAULT_RETRY_POLICY } from '../../shared/chain/retry';
import { deriveBlock } from '../../shared/ingest/derive';
import { BlockSource } from '../../shared/ingest/fetch-block';
import { immutableItems } from '../../shared/ingest/items';
import { COLD_PART_JOINS } from '../../shared/ingest/cold-history';
import { encodeJoins, joinCount, joinsOfAll, mergeJoins, type Joins, rangeCarriesJoins, rangeOwner } from '../../shared/table/joins';

const { values } = parseArgs({ options: { blocks: { type: 'string', default: '600' } } });
const blocks = Number(values.blocks);
const spec = baseProfileSpec({ blocks, transactionsPerBlock: 200 });
const chain = new BaseChain(spec);
const source = new BlockSource(chain.client(), DEFAULT_RETRY_POLICY, { warn: () => undefined });
const entriesByRange = new Map<string, number>();
/** Of each range that carries joins: its parts so far, the joins of its last, and its parts that name none. */
const joined = new Map<string, { parts: number; joins: Joins; unnamed: number; named: number; joinBytes: number }>();
let transactions = 0;
let entries = 0;
console.log(
  `| blocks | transactions | ranges a transaction | of them with one entry | entries a transaction | explorer ranges a transaction | their parts a transaction, joins <= ${COLD_PART_JOINS} | parts naming no joins, a transaction | joins bytes a named part (stored, the owner left out) |`,
);
console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (let number = 1; number <= chain.head; number += 1) {
  const derived = deriveBlock(spec.chainId, await source.fetch(BigInt(number)));
  transactions += derived.transactions.length;
  const blockEntries = new Map<string, object[]>();
  for (const item of immutableItems(derived, (address) => chain.isContract(address))) {
    // Ranges of many blocks' entries only: not a transaction's partition or a block's own items.
    if (/#TX#0x|#BLOCK#|#BLOCKHASH#/.test(item.pk) || item.sk.length < 12) continue;
    entries += 1;
    entriesByRange.set(item.pk, (entriesByRange.get(item.pk) ?? 0) + 1);
    if (rangeCarriesJoins(item.pk)) blockEntries.set(item.pk, [...(blockEntries.get(item.pk) ?? []), item]);
  }
  for (const [pk, items] of blockEntries) {
    const block = joinsOfAll(items);
    const range = joined.get(pk);
    if (range === undefined) {
      joined.set(pk, { parts: 1, joins: block, unnamed: 0, named: 0, joinBytes: 0 });
      continue;
    }
    const merged = mergeJoins([range.joins, block]);
    if (joinCount(merged) <= COLD_PART_JOINS) range.joins = merged;
    else {
      // The part closes before this block's bucket.
      if (joinCount(range.joins) > COLD_PART_JOINS) range.unnamed += 1;
      else {
        range.named += 1;
        range.joinBytes += encodeJoins(range.joins, rangeOwner(pk)).length;
      }
      range.parts += 1;
      range.joins = block;
    }
  }
  if (number === chain.head || (number >= 10 && Number.isInteger(Math.log2(number / 10)))) {
    const single = [...entriesByRange.values()].filter((count) => count === 1).length;
    const ranges = [...joined.values()];
    const parts = ranges.reduce((sum, range) => sum + range.parts, 0);
    const open = [...joined].map(([pk, range]) => ({
      count: joinCount(range.joins),
      bytes: encodeJoins(range.joins, rangeOwner(pk)).length,
    }));
    const unnamed = ranges.reduce((sum, range) => sum + range.unnamed, 0) + open.filter(({ count }) => count > COLD_PART_JOINS).length;
    const named = ranges.reduce((sum, range) => sum + range.named, 0) + open.filter(({ count }) => count <= COLD_PART_JOINS).length;
    const joinBytes =
      ranges.reduce((sum, range) => sum + range.joinBytes, 0) +
      open.filter(({ count }) => count <= COLD_PART_JOINS).reduce((sum, { bytes }) => sum + bytes, 0);
    console.log(
      `| ${number} | ${transactions} | ${(entriesByRange.size / transactions).toFixed(3)} | ${(single / transactions).toFixed(3)} | ${(entries / transactions).toFixed(2)} | ${(ranges.length / transactions).toFixed(3)} | ${(parts / transactions).toFixed(3)} | ${(unnamed / transactions).toFixed(4)} | ${(joinBytes / Math.max(1, named)).toFixed(0)} |`,
    );
  }
}
