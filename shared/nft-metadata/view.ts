/**
 * What the APIs show of an NFT instance's metadata: the document the ingest resolved from a `data:`
 * token URI (on the instance item, G3) or, for a URI on the web, the one the fetcher stored on it (G7,
 * `fetched`), with the state of the fetch. Shared by the explorer and insights groups (read only: no table access here).
 *
 * `status`: the ingest's `resolved` (data: URI parsed), `invalid` (a data: URI that does not parse) and
 * `none` (no URI); for a web URI `pending` (not fetched yet, or retrying), `resolved` (fetched) or
 * `failed` (given up: `error` says why); `unresolved` for a URI this service does not fetch (an
 * unknown scheme). A document fetched for an earlier token URI is shown until the new one is fetched
 * (status `pending` meanwhile), as Blockscout keeps an instance's metadata until a refetch succeeds.
 */
import type { FetchedNftMetadata, NftInstanceRecord } from '../table/records';
import { webScheme } from './uri';

export type MetadataState = 'resolved' | 'invalid' | 'none' | 'unresolved' | 'pending' | 'failed';

export interface ShownMetadata {
  document: Record<string, unknown> | null;
  status: MetadataState | null;
  /** Why the fetch failed (status `failed`), else null. */
  error: string | null;
}

/** A JSON object from stored text, or null (absent, not JSON, not an object). */
export function parseMetadataJson(text: string | null | undefined): Record<string, unknown> | null {
  if (!text) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function shownMetadata(
  instance: Pick<NftInstanceRecord, 'metadataJson' | 'metadataStatus' | 'tokenUri' | 'fetched'> | undefined,
): ShownMetadata {
  if (!instance) return { document: null, status: null, error: null };
  const onChain = parseMetadataJson(instance.metadataJson);
  if (onChain) return { document: onChain, status: instance.metadataStatus, error: null };
  const fetched = instance.fetched;
  const document = parseMetadataJson(fetched?.metadataJson);
  if (instance.metadataStatus !== 'unresolved') return { document: null, status: instance.metadataStatus, error: null };
  if (!webScheme(instance.tokenUri)) return { document: null, status: 'unresolved', error: null };
  if (!fetched || fetched.tokenUri !== instance.tokenUri) return { document, status: 'pending', error: null };
  return { document, status: fetchState(fetched), error: fetched.status === 'failed' ? fetched.error : null };
}

function fetchState(fetched: FetchedNftMetadata): MetadataState {
  return fetched.status === 'fetched' ? 'resolved' : fetched.status;
}
