/**
 * One JSON-RPC call to a node, answered as raw JSON (no viem formatting: tests compare the table with
 * what the node really sent), and waiting for a transaction's receipt the same way.
 */
export async function rawRpc(url: string, method: string, params: unknown[]): Promise<any> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** The raw receipt of `hash`, once the node has mined it (polled every 20 ms, up to 6 s). */
export async function rawReceipt(url: string, hash: string): Promise<any> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    const receipt = await rawRpc(url, 'eth_getTransactionReceipt', [hash]);
    if (receipt) return receipt;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no receipt for ${hash}`);
}
