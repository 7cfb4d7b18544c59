/**
 * The cold history compactor (shared/ingest/cold-history.ts) on the Base profile: how many parts
 * (pointers), how many compressed bytes and how much CPU a transaction, by part size
 * (docs/decisions/cold-history.md, "Step 3 begun"). Ingests `--blocks` blocks of `--txs-per-block` into
 * dynalite in a process of its own, then compacts them all as one span into a local S3 (s3rver on
 * 127.0.0.1): `npx tsx scripts/bench/cold-parts.ts [--blocks 20] [--txs-per-block 200]`.
 * The span is the run's blocks: a day of Base gathers more entries a range, so its parts are fewer and
 * larger; run longer spans to see the trend. Last, what a reader pays to decode the largest parts.
 */
import { parseArgs } from 'node:util';
import { startLocalS3 } from '../lib/local-s3';
import { startTableProcess } from '../lib/table-process';

const { values } = parseArgs({
  options: { blocks: { type: 'string', default: '20' }, 'txs-per-block': { type: 'string', default: '200' } },
});
const blocks = Number(values.blocks);
const perBlock = Number(values['txs-per-block']);
const TABLE = 'cold-parts';

const table = await startTableProcess();
process.env.DYNAMODB_ENDPOINT = table.endpoint;
process.env.TABLE_NAME = TABLE;
const { ensureTable, localClient } = await import('../lib/local-table/ensure-table');
const { scanItems } = await import('../lib/local-table/scan');
const { BaseChain } = await import('./dataset/base-profile');
const { baseProfileSpec } = await import('./dataset/spec');
const { ChainIngest, registerChain } = await import('../../shared/ingest/ingest');
const { compactBlocks } = await import('../../shared/ingest/cold-history');
const { s3ColdStore } = await import('../../shared/aws/cold-store');
const { coldPointerOf, partEntries, partStoredEntries } = await import('../../shared/table/cold-parts');
const { COLD_POINTER_PREFIX } = await import('../../shared/table/keys');
const { useTable } = await import('../../shared/db/client');
await ensureTable(localClient(table.endpoint), TABLE);
useTable(TABLE);

const spec = baseProfileSpec({ blocks, transactionsPerBlock: perBlock });
const chain = new BaseChain(spec);
await registerChain(spec.chainId, 1);
const started = performance.now();
await new ChainIngest({ chainId: spec.chainId, client: chain.client(), log: { info: () => undefined, warn: () => undefined } }).ingestRange(
  {
    from: 1,
    to: chain.head,
  },
);
const transactions = chain.counts.transactions;
console.log(`ingested ${transactions} transactions in ${chain.head} blocks in ${((performance.now() - started) / 1000).toFixed(0)} s`);

const s3 = await startLocalS3(TABLE);
const cpu = process.cpuUsage();
const result = await compactBlocks({
  chainId: spec.chainId,
  fromBlock: 1,
  toBlock: chain.head,
  store: s3ColdStore({ bucket: TABLE, endpoint: s3.endpoint, credentials: s3.credentials }),
});
const used = process.cpuUsage(cpu);
const perTx = (value: number, digits = 2) => (value / transactions).toFixed(digits);
console.log(
  `items ${perTx(result.items)}, parts ${perTx(result.parts, 3)}, opened ${perTx(result.openedBytes / 1024, 3)} KB, compressed ${perTx(result.bytes / 1024, 3)} KB, compactor CPU ${perTx((used.user + used.system) / 1000, 3)} ms a transaction; ${result.objects.length} objects`,
);

const sizes: [string, number][] = [
  ['1', 1],
  ['2-3', 3],
  ['4-10', 10],
  ['11-100', 100],
  ['over 100', Number.POSITIVE_INFINITY],
];
const byCount = new Map<string, { parts: number; items: number; bytes: number }>();
const pointers = (await scanItems(localClient(table.endpoint), TABLE))
  .filter((item) => String(item.pk).startsWith(COLD_POINTER_PREFIX))
  .map((item) => coldPointerOf(item));
for (const item of pointers) {
  const count = item.count;
  const [label] = sizes.find(([, most]) => count <= most)!;
  const row = byCount.get(label) ?? { parts: 0, items: 0, bytes: 0 };
  row.parts += 1;
  row.items += count;
  row.bytes += item.length;
  byCount.set(label, row);
}
console.log('| items a part | parts a transaction | items a transaction | compressed KB a transaction | bytes a part |');
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const [label] of sizes) {
  const row = byCount.get(label);
  if (row)
    console.log(
      `| ${label} | ${perTx(row.parts, 3)} | ${perTx(row.items)} | ${perTx(row.bytes / 1024, 3)} | ${Math.round(row.bytes / row.parts)} |`,
    );
}

// What a reader pays for a part (shared/db/cold-query.ts reads up to four a page): its GET's bytes, and
// the CPU of decompressing and decoding it into entries, for the largest parts.
const store = s3ColdStore({ bucket: TABLE, endpoint: s3.endpoint, credentials: s3.credentials });
console.log('| the largest parts: items | compressed KB | entries | decode ms (entries, packed) | decode ms (entries unpacked) |');
console.log('| ---: | ---: | ---: | ---: | ---: |');
for (const pointer of pointers.sort((a, b) => b.length - a.length).slice(0, 5)) {
  const bytes = await store.read(pointer.object, pointer.offset, pointer.length);
  const time = (decode: () => unknown[]): [number, number] => {
    const rounds = 5;
    let entries = 0;
    const start = performance.now();
    for (let round = 0; round < rounds; round += 1) entries = decode().length;
    return [(performance.now() - start) / rounds, entries];
  };
  const [stored, entries] = time(() => partStoredEntries(bytes));
  const [unpacked] = time(() => partEntries(bytes));
  console.log(`| ${pointer.count} | ${(bytes.length / 1024).toFixed(1)} | ${entries} | ${stored.toFixed(1)} | ${unpacked.toFixed(1)} |`);
}
await s3.close();
await table.close();
