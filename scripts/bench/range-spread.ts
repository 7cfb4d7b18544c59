/**
 * How many distinct index ranges a transaction's entries fall in, by window of blocks, on the Base
 * profile's generator (the cold tier's pointers: one per range and day of cold history, see
 * docs/decisions/cold-history.md). Reads the generator's blocks through the ingest's own fetch, derive
 * and item building (no table): `npx tsx scripts/bench/range-spread.ts [--blocks 600]`.
 * The generator's population is a few minutes of Base (50,000 addresses, 2,000 tokens): past that the
 * figures fall faster than a day of Base's would.
 */
import { parseArgs } from 'node:util';
import { BaseChain } from './dataset/base-profile';
import { baseProfileSpec } from './dataset/spec';
import { DEFAULT_RETRY_POLICY } from '../../shared/chain/retry';
import { deriveBlock } from '../../shared/ingest/derive';
import { BlockSource } from '../../shared/ingest/fetch-block';
import { immutableItems } from '../../shared/ingest/items';

const { values } = parseArgs({ options: { blocks: { type: 'string', default: '600' } } });
const blocks = Number(values.blocks);
const spec = baseProfileSpec({ blocks, transactionsPerBlock: 200 });
const chain = new BaseChain(spec);
const source = new BlockSource(chain.client(), DEFAULT_RETRY_POLICY, { warn: () => undefined });
const entriesByRange = new Map<string, number>();
let transactions = 0;
let entries = 0;
console.log('| blocks | transactions | ranges a transaction | of them with one entry | entries a transaction |');
console.log('| ---: | ---: | ---: | ---: | ---: |');
for (let number = 1; number <= chain.head; number += 1) {
  const derived = deriveBlock(spec.chainId, await source.fetch(BigInt(number)));
  transactions += derived.transactions.length;
  for (const item of immutableItems(derived)) {
    // Ranges of many blocks' entries only: not a transaction's partition or a block's own items.
    if (/#TX#0x|#BLOCK#|#BLOCKHASH#/.test(item.pk) || item.sk.length < 12) continue;
    entries += 1;
    entriesByRange.set(item.pk, (entriesByRange.get(item.pk) ?? 0) + 1);
  }
  if (number === chain.head || (number >= 10 && Number.isInteger(Math.log2(number / 10)))) {
    const single = [...entriesByRange.values()].filter((count) => count === 1).length;
    console.log(
      `| ${number} | ${transactions} | ${(entriesByRange.size / transactions).toFixed(3)} | ${(single / transactions).toFixed(3)} | ${(entries / transactions).toFixed(2)} |`,
    );
  }
}
