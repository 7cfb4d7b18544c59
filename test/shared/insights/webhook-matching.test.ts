/**
 * The webhooks' index (shared/insights/webhook-matching.ts) against the plain definition of a match,
 * evaluated filter by filter on every record: on Base-profile blocks (the bench's generator, derived by
 * the ingest's own code) and the bench's mix of 2,000 webhooks, the index finds exactly the same
 * (webhook, record) pairs, decodings included, while it looks at only the filters a record's keys name.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY } from '../../../shared/chain/retry';
import { deriveBlock, type DerivedBlock } from '../../../shared/ingest/derive';
import { BlockSource } from '../../../shared/ingest/fetch-block';
import { decodeEvent } from '../../../shared/insights/decode';
import { type WebhookFilterEntry, WebhookIndex } from '../../../shared/insights/webhook-matching';
import { BaseChain } from '../../../scripts/bench/dataset/base-profile';
import { baseProfileSpec } from '../../../scripts/bench/dataset/spec';
import { prng } from '../../../scripts/bench/dataset/chain';
import { filtersFor } from '../../../scripts/bench/webhooks';
import type { AbiEvent } from 'viem';

/** Whether `entry` takes the record, by Insight's definition, checked one filter at a time. */
function definitionMatches(
  entry: WebhookFilterEntry,
  chainId: number,
  record: { log?: DerivedBlock['logs'][number]; tx?: DerivedBlock['transactions'][number] },
): boolean {
  if (entry.disabled) return false;
  const onChain = (ids: readonly number[]) => ids.length === 0 || ids.includes(chainId);
  if (record.log) {
    const events = entry.filters.events;
    if (!events || !onChain(events.chainIds)) return false;
    const log = record.log;
    if (events.addresses.length > 0 && !events.addresses.includes(log.address)) return false;
    if (events.signatures.length === 0) return true;
    return events.signatures.some((signature) => {
      if (signature.hash !== log.topics[0]) return false;
      if (!signature.params) return true;
      const decoded = signature.abi ? decodeEvent([signature.abi as AbiEvent], log.topics, log.data) : null;
      if (!decoded) return false;
      const values = { ...decoded.indexed_params, ...decoded.non_indexed_params } as Record<string, unknown>;
      return Object.entries(signature.params).every(([name, value]) => String(values[name]).toLowerCase() === value.toLowerCase());
    });
  }
  const transactions = entry.filters.transactions;
  const tx = record.tx!;
  if (!transactions || !onChain(transactions.chainIds)) return false;
  if (transactions.fromAddresses.length > 0 && !transactions.fromAddresses.includes(tx.from)) return false;
  if (transactions.toAddresses.length > 0 && !(tx.to && transactions.toAddresses.includes(tx.to))) return false;
  return transactions.signatures.length === 0 || transactions.signatures.some((signature) => signature.hash === tx.methodSelector);
}

describe('the webhook index', () => {
  it('finds exactly the pairs the definition does, on Base-profile blocks and 2,000 webhooks over 55 chains', async () => {
    const spec = baseProfileSpec({ blocks: 4, transactionsPerBlock: 200 });
    const source = new BlockSource(new BaseChain(spec).client(), DEFAULT_RETRY_POLICY, { warn: () => undefined });
    const blocks: DerivedBlock[] = [];
    for (let number = 1; number <= 4; number++) blocks.push(deriveBlock(spec.chainId, await source.fetch(BigInt(number))));
    const addresses = [
      ...new Set([
        ...blocks.flatMap((block) => block.logs.map((log) => log.address)),
        ...blocks.flatMap((block) => block.transactions.map((tx) => tx.from)),
      ]),
    ].slice(0, 400);
    const pick = prng(7);
    const entries: WebhookFilterEntry[] = Array.from({ length: 2_000 }, (_, index) => ({
      webhookId: `hook-${index}`,
      project: 'p',
      filters: filtersFor(index, index % 55 === 0 ? spec.chainId : 1_000 + (index % 55), addresses, pick),
      disabled: index % 97 === 0,
    }));
    const index = new WebhookIndex(entries, spec.chainId);
    let pairs = 0;
    for (const block of blocks) {
      const found = index.match(block);
      const byIndex = new Set(
        [...found].flatMap(([webhookId, matches]) =>
          matches.map((match) => `${webhookId}|${match.type === 'event' ? `log:${match.log.logIndex}` : `tx:${match.transaction.hash}`}`),
        ),
      );
      const byDefinition = new Set<string>();
      for (const entry of entries) {
        for (const tx of block.transactions)
          if (definitionMatches(entry, spec.chainId, { tx })) byDefinition.add(`${entry.webhookId}|tx:${tx.hash}`);
        for (const log of block.logs)
          if (definitionMatches(entry, spec.chainId, { log })) byDefinition.add(`${entry.webhookId}|log:${log.logIndex}`);
      }
      expect(byIndex).toEqual(byDefinition);
      pairs += byIndex.size;
    }
    // The mix does match (addresses drawn from the blocks, Transfer signatures, params).
    expect(pairs).toBeGreaterThan(50);
  }, 60_000);
});
