/**
 * The operator's key CLI (`npm run keys`, scripts/keys.ts) as a child process against the test file's
 * table: a created key is printed once and authenticates, the table holds only its hash, `list` shows
 * keys without them, `revoke` ends the key's access, and mistakes exit 1 with the usage.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../../scripts/lib/dispatch';
import { authenticate } from '../../shared/insights/api-keys';
import { tableSnapshot, useTestTable } from '../support/table';

const table = useTestTable('keys-cli');
const run = promisify(execFile);
const limits = { requestsPerMinute: 100 };

async function keys(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', path.join(REPOSITORY_ROOT, 'scripts/keys.ts'), ...args], {
      cwd: REPOSITORY_ROOT,
      env: { ...process.env, TABLE_NAME: table.name },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('npm run keys', () => {
  it('create prints the key once; the table keeps its hash; list and revoke by key id', async () => {
    const created = await keys('create', '--project', 'acme', '--name', 'ci');
    expect(created.code, created.stderr).toBe(0);
    const issued = JSON.parse(created.stdout);
    expect(issued).toMatchObject({ project: 'acme', name: 'ci', revokedAt: null, keyId: expect.stringMatching(/^key_[0-9a-f]{12}$/) });
    expect(issued.key).toMatch(/^sk_acme_[A-Za-z0-9_-]{43}$/);
    expect(await authenticate(issued.key, limits)).toEqual({ project: 'acme', keyId: issued.keyId });

    // Nowhere in the table is the key itself; its SHA-256 is.
    const stored = JSON.stringify(await tableSnapshot(table.name));
    expect(stored).not.toContain(issued.key);
    expect(stored).toContain(createHash('sha256').update(issued.key).digest('hex'));

    const other = JSON.parse((await keys('create', '--project', 'other')).stdout);
    const listed = await keys('list', '--project', 'acme');
    expect(
      listed.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([{ keyId: issued.keyId, project: 'acme', name: 'ci', createdAt: issued.createdAt, revokedAt: null }]);
    expect((await keys('list')).stdout.trim().split('\n')).toHaveLength(2);
    expect(listed.stdout).not.toContain(issued.key);

    const revoked = await keys('revoke', issued.keyId);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout).revokedAt).toEqual(expect.any(String));
    await expect(authenticate(issued.key, limits)).rejects.toThrow(/revoked/);
    // The other key is untouched.
    expect(await authenticate(other.key, limits)).toMatchObject({ project: 'other' });
  }, 60_000);

  it.each([
    [['create'], /create needs --project/],
    [['create', '--project', 'Not A Project'], /lowercase letters/],
    [['revoke'], /revoke needs <keyId>/],
    [['revoke', 'key_000000000000'], /no key "key_000000000000"/],
    [['rotate'], /unknown command "rotate"/],
  ])(
    '%j exits 1 with the reason and the usage',
    async (args, message) => {
      const result = await keys(...args);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).toContain('usage:');
    },
    60_000,
  );
});
