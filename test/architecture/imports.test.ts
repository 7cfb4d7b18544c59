/**
 * The architecture as the import graph shows it: route -> handler -> domain -> table layer -> table.
 * Read from the source with TypeScript's own import scanner; every rule names the files that break it.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../../scripts/lib/dispatch';
import { consumers } from '../../shared/jobs';
import { routes } from '../../shared/routes';

const RUNTIME_FOLDERS = ['shared', 'functions', 'lib'];
const GROUPS = ['explorer', 'insights', 'orders', 'collections'];

function sourceFiles(folder: string): string[] {
  const absolute = path.join(REPOSITORY_ROOT, folder);
  return readdirSync(absolute).flatMap((name) => {
    const file = path.join(absolute, name);
    const relative = path.join(folder, name);
    if (statSync(file).isDirectory()) return sourceFiles(relative);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [relative] : [];
  });
}

interface Import {
  specifier: string;
  /** The repository file a relative specifier resolves to. */
  target?: string;
  /** The names imported (empty for a side-effect or namespace import). */
  names: string[];
}

const importCache = new Map<string, Import[]>();

function importsOf(file: string): Import[] {
  let cached = importCache.get(file);
  if (cached) return cached;
  const text = readFileSync(path.join(REPOSITORY_ROOT, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  cached = [];
  const visit = (node: ts.Node) => {
    const moduleSpecifier =
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)
        ? node.moduleSpecifier.text
        : ts.isCallExpression(node) &&
            node.expression.kind === ts.SyntaxKind.ImportKeyword &&
            node.arguments[0] &&
            ts.isStringLiteral(node.arguments[0])
          ? node.arguments[0].text
          : undefined;
    if (moduleSpecifier !== undefined) {
      const names: string[] = [];
      if (ts.isImportDeclaration(node) && node.importClause && !node.importClause.isTypeOnly) {
        const bindings = node.importClause.namedBindings;
        if (bindings && ts.isNamedImports(bindings))
          for (const element of bindings.elements) if (!element.isTypeOnly) names.push((element.propertyName ?? element.name).text);
      }
      cached!.push({ specifier: moduleSpecifier, target: resolve(file, moduleSpecifier), names });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  importCache.set(file, cached);
  return cached;
}

function resolve(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.normalize(path.join(path.dirname(from), specifier));
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts'), base]) {
    try {
      if (statSync(path.join(REPOSITORY_ROOT, candidate)).isFile()) return candidate;
    } catch {
      // next candidate
    }
  }
  return undefined;
}

/** Every repository file `entry` loads, itself included. */
function closure(entry: string): Set<string> {
  const seen = new Set<string>();
  const stack = [entry];
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const { target } of importsOf(file)) if (target?.endsWith('.ts')) stack.push(target);
  }
  return seen;
}

const runtimeFiles = RUNTIME_FOLDERS.flatMap(sourceFiles);
const toolFiles = sourceFiles('scripts');

describe('the import graph', () => {
  it('every relative import resolves to a file', () => {
    const broken = [...runtimeFiles, ...toolFiles].flatMap((file) =>
      importsOf(file)
        .filter((entry) => entry.specifier.startsWith('.') && !entry.target)
        .map((entry) => `${file} -> ${entry.specifier}`),
    );
    expect(broken).toEqual([]);
  });

  it('has no cycle in the runtime code', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (file: string) => {
      state.set(file, 'open');
      stack.push(file);
      for (const { target } of importsOf(file)) {
        if (!target?.endsWith('.ts')) continue;
        if (state.get(target) === 'open') cycles.push([...stack.slice(stack.indexOf(target)), target].join(' -> '));
        else if (!state.has(target)) visit(target);
      }
      stack.pop();
      state.set(file, 'done');
    };
    for (const file of runtimeFiles) if (!state.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });

  it('the table model, the table layer, the chain and the ingest import no API group', () => {
    const lower = runtimeFiles.filter((file) => /^shared\/(table|db|chain|ingest)\//.test(file));
    const arrows = lower.flatMap((file) =>
      importsOf(file)
        .filter((entry) => entry.target && GROUPS.some((group) => entry.target!.startsWith(`shared/${group}/`)))
        .map((entry) => `${file} -> ${entry.target}`),
    );
    expect(arrows).toEqual([]);
  });

  it("the API groups import no ingest code (orders, and insights' webhook matching: only the listener interface and the queue consumer)", () => {
    const allowed = new Set(['shared/ingest/listeners.ts', 'shared/ingest/queue-consumer.ts']);
    const listenerFiles = new Set(['shared/insights/webhook-dispatch.ts', 'functions/insights/match-webhooks.ts']);
    const apiFiles = runtimeFiles.filter((file) =>
      GROUPS.some((group) => file.startsWith(`shared/${group}/`) || file.startsWith(`functions/${group}/`)),
    );
    const arrows = apiFiles.flatMap((file) =>
      importsOf(file)
        .filter((entry) => entry.target?.startsWith('shared/ingest/'))
        .filter((entry) => !((/^(shared|functions)\/orders\//.test(file) || listenerFiles.has(file)) && allowed.has(entry.target!)))
        .map((entry) => `${file} -> ${entry.target}`),
    );
    expect(arrows).toEqual([]);
    // Nor through another module: the read APIs' handlers load no ingest file at all (their queues' consumers,
    // which the ingest's listeners feed, aside).
    const consumerHandlers = new Set(consumers.map((consumer) => consumer.handler));
    const loaded = sourceFiles('functions')
      .filter((handler) => /^functions\/(explorer|insights|collections)\//.test(handler) && !consumerHandlers.has(handler))
      .flatMap((handler) =>
        [...closure(handler)].filter((file) => file.startsWith('shared/ingest/')).map((file) => `${handler} loads ${file}`),
      );
    expect(loaded).toEqual([]);
  });

  it('the egress checks (shared/egress) import nothing of the service outside themselves', () => {
    const arrows = runtimeFiles
      .filter((file) => file.startsWith('shared/egress/'))
      .flatMap((file) =>
        importsOf(file)
          .filter((entry) => entry.target && !entry.target.startsWith('shared/egress/'))
          .map((entry) => `${file} -> ${entry.target}`),
      );
    expect(arrows).toEqual([]);
    expect(runtimeFiles.filter((file) => file.startsWith('shared/egress/')).sort()).toEqual([
      'shared/egress/addresses.ts',
      'shared/egress/lookup.ts',
      'shared/egress/url.ts',
    ]);
  });

  it('the chain status readers (shared/chain-status) import neither the ingest nor an API group', () => {
    const arrows = runtimeFiles
      .filter((file) => file.startsWith('shared/chain-status/'))
      .flatMap((file) =>
        importsOf(file)
          .filter((entry) => entry.target && /^shared\/(ingest|chain|explorer|insights|orders|collections)\//.test(entry.target))
          .map((entry) => `${file} -> ${entry.target}`),
      );
    expect(arrows).toEqual([]);
  });

  it('the NFT metadata fetcher (shared/nft-metadata) imports no API group, and of the ingest only the listener interface (its listener)', () => {
    const arrows = runtimeFiles
      .filter((file) => file.startsWith('shared/nft-metadata/'))
      .flatMap((file) =>
        importsOf(file)
          .filter((entry) => entry.target && /^shared\/(ingest|explorer|insights|orders|collections)\//.test(entry.target))
          .filter((entry) => !(file === 'shared/nft-metadata/listener.ts' && entry.target === 'shared/ingest/listeners.ts'))
          .map((entry) => `${file} -> ${entry.target}`),
      );
    expect(arrows).toEqual([]);
    // The read APIs show its items through view.ts, uri.ts and config.ts: never its listener (the ingest's side).
    const loaded = sourceFiles('functions')
      .filter((handler) => /^functions\/(explorer|insights)\//.test(handler))
      .flatMap((handler) =>
        [...closure(handler)].filter((file) => file === 'shared/nft-metadata/listener.ts').map((file) => `${handler} loads ${file}`),
      );
    expect(loaded).toEqual([]);
  });

  it('the table model imports nothing but itself', () => {
    const arrows = runtimeFiles
      .filter((file) => file.startsWith('shared/table/'))
      .flatMap((file) =>
        importsOf(file)
          .filter((entry) => entry.target && !entry.target.startsWith('shared/table/'))
          .map((entry) => `${file} -> ${entry.target}`),
      );
    expect(arrows).toEqual([]);
  });

  it('only the table layer (shared/db) sends DynamoDB commands', () => {
    const offenders = [...runtimeFiles, ...toolFiles]
      // (The bench's cold-start floor is the bare SDK sending one Query, by design: scripts/bench/lib/sdk-floor.ts.)
      .filter(
        (file) =>
          !file.startsWith('shared/db/') && !file.startsWith('scripts/lib/local-table/') && file !== 'scripts/bench/lib/sdk-floor.ts',
      )
      .flatMap((file) =>
        importsOf(file)
          .filter(
            (entry) =>
              (entry.specifier === '@aws-sdk/lib-dynamodb' || entry.specifier === '@aws-sdk/client-dynamodb') &&
              entry.names.some((name) => name.endsWith('Command')),
          )
          .map((entry) => `${file}: ${entry.names.filter((name) => name.endsWith('Command')).join(', ')}`),
      );
    expect(offenders).toEqual([]);
  });

  it('no runtime file imports local-only code (scripts/)', () => {
    const arrows = runtimeFiles.flatMap((file) =>
      importsOf(file)
        .filter((entry) => entry.target?.startsWith('scripts/'))
        .map((entry) => `${file} -> ${entry.target}`),
    );
    expect(arrows).toEqual([]);
  });

  it('a handler loads no other API group', () => {
    const arrows = sourceFiles('functions').flatMap((handler) => {
      const own = handler.split('/')[1]!;
      return [...closure(handler)]
        .filter((file) => GROUPS.some((group) => group !== own && file.startsWith(`shared/${group}/`)))
        .map((file) => `${handler} loads ${file}`);
    });
    expect(arrows).toEqual([]);
  });
});

describe('the layout', () => {
  const kebab = (id: string) => id.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();

  it('every handler file is named for a route it serves, and lives in its group’s folder', () => {
    const misnamed = [...new Set(routes.map((route) => route.handler))].filter((handler) => {
      const served = routes.filter((route) => route.handler === handler);
      return !served.some((route) => handler === `functions/${route.group}/${kebab(route.id)}.ts`);
    });
    expect(misnamed).toEqual([]);
  });

  it('the ingest Lambda loads no API group at all (it publishes its listener calls to a queue)', () => {
    const loaded = [...closure('functions/ingest/ingest-chain.ts')];
    expect(loaded.filter((file) => GROUPS.some((group) => file.startsWith(`shared/${group}/`)))).toEqual([]);
    expect(loaded.filter((file) => file.startsWith('shared/orders/'))).toEqual([]);
    expect(loaded).toContain('shared/ingest/queue-listener.ts');
  });

  it('the ingest Lambda queues NFT metadata fetches through the fetcher’s listener, and loads no fetcher code beyond it', () => {
    const loaded = [...closure('functions/ingest/ingest-chain.ts')];
    expect(loaded).toContain('shared/nft-metadata/listener.ts');
    expect(loaded).not.toContain('shared/nft-metadata/fetch.ts');
    expect(loaded).not.toContain('shared/nft-metadata/process.ts');
  });

  it('the NFT metadata consumer loads the fetcher, not the ingest nor an API group', () => {
    const loaded = [...closure('functions/nft-metadata/fetch-nft-metadata.ts')];
    expect(loaded).toContain('shared/nft-metadata/process.ts');
    expect(loaded).toContain('shared/nft-metadata/fetch.ts');
    expect(loaded.filter((file) => /^shared\/(ingest|explorer|insights|orders|collections)\//.test(file))).toEqual([]);
  });

  it('the deposit consumer loads deposit detection and the queue format, not the ingest itself', () => {
    const loaded = [...closure('functions/orders/detect-deposits.ts')];
    expect(loaded).toContain('shared/orders/deposits.ts');
    expect(loaded).toContain('shared/ingest/queue-consumer.ts');
    // (type-only imports count here too, so derive.ts's types pull a few ingest files in; never the ingest itself)
    expect(loaded).not.toContain('shared/ingest/ingest.ts');
    expect(loaded).not.toContain('shared/ingest/queue-listener.ts');
  });

  it('the http bench loads no table client before it points one at its table (no import at its top reaches shared/db/client.ts)', () => {
    // The client reads DYNAMODB_ENDPOINT when its module loads: one loaded by a top-level import talked to
    // AWS without credentials (the run of 2026-11-29 17:38, through a webhook setting's module).
    const loaded = new Set<string>();
    const stack = ['scripts/bench/http.ts'];
    while (stack.length > 0) {
      const file = stack.pop()!;
      if (loaded.has(file)) continue;
      loaded.add(file);
      const source = ts.createSourceFile(file, readFileSync(path.join(REPOSITORY_ROOT, file), 'utf8'), ts.ScriptTarget.Latest, false);
      for (const statement of source.statements) {
        const declaration =
          (ts.isImportDeclaration(statement) && !statement.importClause?.isTypeOnly) ||
          (ts.isExportDeclaration(statement) && !statement.isTypeOnly);
        if (!declaration || !statement.moduleSpecifier || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
        const target = resolve(file, statement.moduleSpecifier.text);
        if (target?.endsWith('.ts')) stack.push(target);
      }
    }
    expect(loaded.has('shared/insights/limits.ts')).toBe(true);
    expect([...loaded].filter((file) => file === 'shared/db/client.ts')).toEqual([]);
  });
});
