/**
 * Settings of the explorer group. Like a Blockscout instance, the explorer serves ONE chain: the
 * chain whose ingested items its endpoints read (`EXPLORER_CHAIN_ID`, default 31337, the demo chain).
 */
import * as v from 'valibot';
import { readEnv } from '../config';

/** Items in one explorer page (Blockscout's page size). */
export const PAGE_SIZE = 50;

export const DEFAULT_EXPLORER_CHAIN_ID = 31337;

const explorerSchema = v.object({
  EXPLORER_CHAIN_ID: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[1-9][0-9]{0,15}$/, 'must be a positive integer'),
      v.transform(Number),
      v.safeInteger('must be a positive integer'),
    ),
    String(DEFAULT_EXPLORER_CHAIN_ID),
  ),
});

export interface ExplorerConfig {
  /** The chain every explorer endpoint reads. */
  chainId: number;
}

/** The explorer's settings from the environment; throws a readable error on an invalid value. */
export function loadExplorerConfig(env: Record<string, string | undefined> = process.env): ExplorerConfig {
  return { chainId: readEnv(explorerSchema, env).EXPLORER_CHAIN_ID };
}
