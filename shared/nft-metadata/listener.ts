/**
 * The ingest listener that queues NFT metadata fetches (shared/ingest/listeners.ts, `nftInstancesWritten`):
 * given the NFT instances a batch wrote, it sends a `token` request (queue.ts) for each one whose token
 * URI is on the web (ipfs://, ar://, http(s)://: not data:, which the ingest reads itself) and not yet
 * fetched for that URI, i.e. whose instance item has no `fetched` state (G7) or one about another URI.
 * One BatchGetItem of the batch's instances, then the sends; nothing is fetched here, in the ingest's path.
 *
 * Composed by whoever runs the ingest: the ingest Lambda with the SQS queue (NFT_METADATA_QUEUE_URL),
 * `npm start` with its in-process worker. Like every listener it is called at least once per batch
 * before the cursor moves; a send that fails throws, and the batch is ingested (and notified) again.
 */
import type { IngestListener, NftInstancesWrittenEvent } from '../ingest/listeners';
import { keyId } from '../table/keys';
import { MESSAGE_VERSION, type MetadataQueue, type MetadataRequest } from './queue';
import { instanceKey, readFetchedStates } from './store';
import { webScheme } from './uri';

export function nftMetadataListener(queue: MetadataQueue): IngestListener {
  return {
    blocksIngested: () => undefined,
    nftInstancesWritten: async (event: NftInstancesWrittenEvent) => {
      const candidates = new Map<string, { contract: string; tokenId: string; tokenUri: string }>();
      for (const instance of event.instances) {
        if (!instance.tokenUri || webScheme(instance.tokenUri) === null) continue;
        const ref = { chainId: event.chainId, contract: instance.contract.toLowerCase(), tokenId: instance.tokenId };
        candidates.set(keyId(instanceKey(ref)), { ...ref, tokenUri: instance.tokenUri });
      }
      if (candidates.size === 0) return;
      const known = await readFetchedStates([...candidates.values()].map((entry) => ({ chainId: event.chainId, ...entry })));
      const requests: MetadataRequest[] = [];
      for (const [id, entry] of candidates) {
        if (known.get(id)?.fetched?.tokenUri === entry.tokenUri) continue;
        requests.push({ v: MESSAGE_VERSION, kind: 'token', chainId: event.chainId, contract: entry.contract, tokenId: entry.tokenId });
      }
      if (requests.length > 0) await queue.send(requests);
    },
  };
}
