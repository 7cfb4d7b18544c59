/**
 * The ingest listener that queues NFT metadata fetches (shared/ingest/listeners.ts, `nftInstancesWritten`):
 * given the NFT instances a batch wrote, it sends a `token` request (queue.ts) for each one whose token
 * URI is on the web (ipfs://, ar://, http(s)://: not data:, which the ingest reads itself) and not yet
 * fetched for that URI, i.e. whose instance item had no `fetched` state or one about another URI when the
 * ingest read it (the event's `fetchedTokenUri`). No table read, only the sends; nothing is fetched here,
 * in the ingest's path.
 *
 * Composed by whoever runs the ingest: the ingest Lambda with the SQS queue (NFT_METADATA_QUEUE_URL),
 * `npm start` with its in-process worker. Like every listener it is called at least once per batch
 * before the cursor moves; a send that fails throws, and the batch is ingested (and notified) again.
 */
import type { IngestListener, NftInstancesWrittenEvent } from '../ingest/listeners';
import { keyId } from '../table/keys';
import { MESSAGE_VERSION, type MetadataQueue, type MetadataRequest } from './queue';
import { instanceKey } from './store';
import { webScheme } from './uri';

export function nftMetadataListener(queue: MetadataQueue): IngestListener {
  return {
    blocksIngested: () => undefined,
    nftInstancesWritten: async (event: NftInstancesWrittenEvent) => {
      const requests = new Map<string, MetadataRequest>();
      for (const instance of event.instances) {
        if (!instance.tokenUri || webScheme(instance.tokenUri) === null) continue;
        if (instance.fetchedTokenUri === instance.tokenUri) continue;
        const ref = { chainId: event.chainId, contract: instance.contract.toLowerCase(), tokenId: instance.tokenId };
        requests.set(keyId(instanceKey(ref)), { v: MESSAGE_VERSION, kind: 'token', ...ref });
      }
      if (requests.size > 0) await queue.send([...requests.values()]);
    },
  };
}
