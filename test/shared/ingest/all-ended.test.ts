/**
 * allEnded (shared/ingest/all-ended.ts): a failure is thrown only once every other write has ended, so
 * that no next attempt of a batch runs beside a write of the one before.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { allEnded } from '../../../shared/ingest/all-ended';

describe('allEnded', () => {
  it('returns every value in order', async () => {
    expect(await allEnded([Promise.resolve(1), sleep(5).then(() => 'two'), undefined])).toEqual([1, 'two', undefined]);
  });

  it('throws the first failure only after the slower writes have ended', async () => {
    let slowEnded = false;
    const slow = sleep(30).then(() => {
      slowEnded = true;
    });
    await expect(allEnded([Promise.reject(new Error('refused')), slow])).rejects.toThrow('refused');
    expect(slowEnded).toBe(true);
  });
});
