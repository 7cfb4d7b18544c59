/**
 * A real anvil with the demo contracts deployed and the whole demo activity run on it, for tests:
 * startAnvil + deployDemoContracts + generateDemoActivity. Nothing is cached across processes;
 * each call starts its own anvil on a free loopback port (a few seconds in all).
 */
import { startAnvil, type Anvil } from '../../scripts/lib/anvil';
import { rawRpc } from './raw-rpc';
import { deployDemoContracts, generateDemoActivity, type DemoManifest } from '../../scripts/lib/demo-activity';

export interface DemoChain {
  anvil: Anvil;
  manifest: DemoManifest;
  stop(): Promise<void>;
}

/**
 * `blockSeconds`: every block that many seconds after the one before (anvil_setBlockTimestampInterval),
 * so that no two blocks share a timestamp (by default anvil stamps blocks with the wall clock: the demo's
 * blocks share seconds).
 */
export async function startDemoChain(options: { chainId?: number; blockSeconds?: number } = {}): Promise<DemoChain> {
  const anvil = await startAnvil({ chainId: options.chainId ?? 31337 });
  try {
    if (options.blockSeconds !== undefined) await rawRpc(anvil.rpcUrl, 'anvil_setBlockTimestampInterval', [options.blockSeconds]);
    const deployment = await deployDemoContracts(anvil.rpcUrl);
    const manifest = await generateDemoActivity(anvil.rpcUrl, { deployment });
    return { anvil, manifest, stop: () => anvil.stop() };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}
