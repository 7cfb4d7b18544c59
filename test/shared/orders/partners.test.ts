import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { testEndpoint, useTestTable } from '../../support/table';
import { REPOSITORY_ROOT } from '../../../scripts/lib/dispatch';
import { getPartner, listPartners, putPartner } from '../../../shared/orders/partners';

const table = useTestTable('orders-partners');
const run = promisify(execFile);

/** Runs `npm run partners -- ...` (tsx scripts/partners.ts) against this file's table. */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const tsx = path.join(REPOSITORY_ROOT, 'node_modules', '.bin', 'tsx');
  try {
    const { stdout, stderr } = await run(tsx, ['scripts/partners.ts', ...args], {
      cwd: REPOSITORY_ROOT,
      env: { ...process.env, TABLE_NAME: table.name, DYNAMODB_ENDPOINT: testEndpoint() },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('partner records', () => {
  it('puts, replaces (keeping createdAt) and lists partners by id', async () => {
    const first = await putPartner({ partnerId: 'beta', discountBps: 10 });
    await putPartner({ partnerId: 'alpha', discountBps: 25, name: 'Alpha' });
    const replaced = await putPartner({ partnerId: 'beta', discountBps: 40 });
    expect(replaced.createdAt).toBe(first.createdAt);
    expect((await getPartner('beta'))?.discountBps).toBe(40);
    expect((await listPartners()).map((partner) => [partner.partnerId, partner.discountBps])).toEqual([
      ['alpha', 25],
      ['beta', 40],
    ]);
  });

  it('rejects a discount outside 0..10000', async () => {
    await expect(putPartner({ partnerId: 'gamma', discountBps: 10_001 })).rejects.toThrow(/at most 10000/);
    expect(await getPartner('gamma')).toBeUndefined();
  });
});

describe('npm run partners', () => {
  it('puts, gets and lists partners through the CLI', async () => {
    const put = await cli('put', 'cli-partner', '--discount-bps', '35', '--name', 'CLI Partner');
    expect(put.code).toBe(0);
    expect(JSON.parse(put.stdout)).toMatchObject({ partnerId: 'cli-partner', discountBps: 35, name: 'CLI Partner' });
    expect((await getPartner('cli-partner'))?.discountBps).toBe(35);

    const get = await cli('get', 'cli-partner');
    expect(JSON.parse(get.stdout)).toMatchObject({ partnerId: 'cli-partner', discountBps: 35 });

    const list = await cli('list');
    const ids = list.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).partnerId);
    expect(ids).toContain('cli-partner');
  });

  it('fails with a usage message on bad input and writes nothing', async () => {
    const bad = await cli('put', 'x', '--discount-bps', '12.5');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--discount-bps must be a whole number');
    const unknown = await cli('get', 'nobody');
    expect(unknown.code).toBe(1);
    expect(await getPartner('x')).toBeUndefined();
  });
});
