/**
 * I5 GET /insights/v1/chains/{chainId}/status: whether a chain's data is current, from the ingest's
 * status item and cursor (shared/chain-status/status.ts; one BatchGetItem, never the container's copy):
 * the indexed head, the node's head as the ingest last saw it, the lag in blocks and seconds, the
 * state (`following`, `catching_up`, `repairing`, `stopped`) and why, and the chain's capabilities.
 * thirdweb Insight has no such endpoint; the shape is this service's own (docs/decisions/insights.md).
 */
import * as v from 'valibot';
import { type ChainStatusSettings, chainStatusSchema, readChainStatus, serialiseChainStatus } from '../chain-status/status';
import { assertChainsIndexed } from './chains';

/** The status takes no query parameter: an unknown one is refused, as on every insights route. */
export const chainStatusQuery = v.strictObject({});

export const chainStatusPath = v.strictObject({
  chainId: v.pipe(
    v.string(),
    v.regex(/^[1-9][0-9]{0,15}$/, 'must be a positive integer'),
    v.transform(Number),
    v.safeInteger('must be a positive integer'),
  ),
});

export const chainStatusResponse = v.strictObject({ data: chainStatusSchema });
export type ChainStatusResponse = v.InferOutput<typeof chainStatusResponse>;

/** The chain's status (404 when this table does not index the chain). */
export async function getChainStatus(chainId: number, settings: ChainStatusSettings): Promise<ChainStatusResponse> {
  await assertChainsIndexed([chainId]);
  return { data: serialiseChainStatus(await readChainStatus(chainId, settings, { history: true })) };
}
