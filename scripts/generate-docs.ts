/** `npm run docs`: rewrites the README's endpoint tables from the route table. */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { REPOSITORY_ROOT } from './lib/dispatch';
import { withRouteTables } from './lib/route-docs';

const file = path.join(REPOSITORY_ROOT, 'README.md');
const before = await readFile(file, 'utf8');
const after = withRouteTables(before);
await writeFile(file, after);
console.log(after === before ? 'README.md: endpoint tables already current' : 'README.md: endpoint tables updated');
