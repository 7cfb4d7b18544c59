/**
 * AnySpend's published client (`@b3dotfun/sdk` 0.0.30), as the client tests use it unchanged. The
 * package cannot be npm-installed (a dependency version the registry lacks), so its tarball is
 * fetched once with `npm pack` and unpacked under `.clients/` (gitignored): into a temporary folder
 * first, then renamed into place, so that two test workers never see a half-extracted copy (the
 * loser of the rename drops its copy). The service module needs only viem, invariant and big.js,
 * which the repository installs.
 *
 * The client reads its base URL from NEXT_PUBLIC_ANYSPEND_BASE_URL once, when its module loads:
 * `loadAnyspendClient(baseUrl)` sets it, then imports the modules by file URL.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export const SDK_VERSION = '0.0.30';
const REPO_ROOT = path.resolve(__dirname, '../..');
const CLIENTS_DIR = path.join(REPO_ROOT, '.clients');
const PACKAGE_DIR = path.join(CLIENTS_DIR, `b3dotfun-sdk-${SDK_VERSION}`, 'package');

/** The unpacked package folder, fetched when missing. */
export function anyspendSdkDir(): string {
  if (existsSync(path.join(PACKAGE_DIR, 'package.json'))) return PACKAGE_DIR;
  mkdirSync(CLIENTS_DIR, { recursive: true });
  const work = mkdtempSync(path.join(CLIENTS_DIR, '.b3dotfun-sdk-'));
  try {
    const output = execFileSync('npm', ['pack', `@b3dotfun/sdk@${SDK_VERSION}`, '--pack-destination', work, '--silent'], {
      encoding: 'utf8',
      cwd: work,
    });
    const tarball = path.join(work, output.trim().split('\n').pop()!.trim());
    const unpacked = path.join(work, 'unpacked');
    mkdirSync(unpacked);
    execFileSync('tar', ['-xzf', tarball, '-C', unpacked]);
    try {
      renameSync(unpacked, path.dirname(PACKAGE_DIR));
    } catch (error) {
      // Another worker renamed its copy first: use that one.
      if (!existsSync(path.join(PACKAGE_DIR, 'package.json'))) throw error;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return PACKAGE_DIR;
}

/** What the tests use of the SDK: the service client, the hooks' payload builders and the status formatter. */
export interface AnyspendClient {
  anyspendService: {
    createOrder(request: Record<string, unknown>): Promise<any>;
    getOrderAndTransactions(orderId: string): Promise<any>;
    getOrderHistory(creatorAddress: string | undefined, limit?: number, offset?: number): Promise<any>;
  };
  buildPayload(orderType: string, params: Record<string, unknown>): Record<string, unknown>;
  buildMetadata(orderType: string, params: Record<string, unknown>): Record<string, unknown>;
  getStatusDisplay(order: unknown): { text: string; status: string; description?: string };
  normalizeAddress(address: string): string;
}

/** Points the client at `baseUrl` (no trailing slash) and loads it. Call once per process, before any other import of the SDK. */
export async function loadAnyspendClient(baseUrl: string): Promise<AnyspendClient> {
  const dir = anyspendSdkDir();
  process.env.NEXT_PUBLIC_ANYSPEND_BASE_URL = baseUrl;
  const load = (file: string) => import(pathToFileURL(path.join(dir, 'dist/esm/anyspend', file)).href);
  const [service, payload, format, address] = await Promise.all([
    load('services/anyspend.js'),
    load('utils/orderPayload.js'),
    load('utils/format.js'),
    load('utils/address.js'),
  ]);
  return {
    anyspendService: service.anyspendService,
    buildPayload: payload.buildPayload,
    buildMetadata: payload.buildMetadata,
    getStatusDisplay: format.getStatusDisplay,
    normalizeAddress: address.normalizeAddress,
  };
}
