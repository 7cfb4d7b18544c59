import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../../scripts/lib/dispatch';
import { withRouteTables } from '../../scripts/lib/route-docs';
import { routes } from '../../shared/routes';

describe('README', () => {
  it('lists every route of the route table (run `npm run docs` after adding one)', async () => {
    const readme = await readFile(path.join(REPOSITORY_ROOT, 'README.md'), 'utf8');
    expect(readme).toBe(withRouteTables(readme));
    for (const route of routes) expect(readme).toContain(`\`${route.method} ${route.path}\``);
  });

  it('shows the two commands of the quick start and the test command', async () => {
    const readme = await readFile(path.join(REPOSITORY_ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm test');
  });
});
