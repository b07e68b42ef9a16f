/**
 * A service with many constructor dependencies does many jobs: every one of them has to be read,
 * faked and reasoned about to change any other. Each service class of libs/ (an @Injectable whose
 * name ends in "Service") takes at most MAX_DEPENDENCIES; one that needs more is split by job.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = process.cwd();
const LIBS = path.join(ROOT, 'libs');
const MAX_DEPENDENCIES = 8;

interface ServiceClass {
  name: string;
  dependencies: number;
}

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'node_modules' || name === 'dist' ? [] : sourcesUnder(full);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') && !name.endsWith('.d.ts') ? [full] : [];
  });
}

function isInjectable(node: ts.ClassDeclaration): boolean {
  return (ts.getDecorators(node) ?? []).some(
    (decorator) => ts.isCallExpression(decorator.expression) && ts.isIdentifier(decorator.expression.expression) && decorator.expression.expression.text === 'Injectable',
  );
}

/** The service classes declared in `source`, each with the number of its constructor's parameters. */
function serviceClassesOf(fileName: string, source: string): ServiceClass[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  return file.statements.filter(ts.isClassDeclaration).flatMap((node) => {
    const name = node.name?.text;
    if (name === undefined || !name.endsWith('Service') || !isInjectable(node)) return [];
    const constructor = node.members.find(ts.isConstructorDeclaration);
    return [{ name, dependencies: constructor?.parameters.length ?? 0 }];
  });
}

describe('the services of libs/', () => {
  const services = sourcesUnder(LIBS).flatMap((file) =>
    serviceClassesOf(file, readFileSync(file, 'utf8')).map((service) => ({ ...service, file: path.relative(ROOT, file) })),
  );

  it('counts the constructor dependencies of every service class, and only of those (the counter itself)', () => {
    const source = `
      @Injectable()
      export class BusyService {
        constructor(private readonly a: A, @Inject(TOKEN) private readonly b: B, c: C) {}
      }
      @Injectable()
      export class StatelessService {}
      @Injectable()
      export class SomeSweeper { constructor(private readonly a: A) {} }
      export class PlainService { constructor(private readonly a: A) {} }
    `;
    expect(serviceClassesOf('sample.ts', source)).toEqual([
      { name: 'BusyService', dependencies: 3 },
      { name: 'StatelessService', dependencies: 0 },
    ]);
  });

  it('finds the services of every lib', () => {
    expect(services.length).toBeGreaterThan(40);
    expect(services).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'ResolveBundleService', file: 'libs/clarification/src/resolve/resolve-bundle.service.ts' })]));
  });

  it(`none takes more than ${MAX_DEPENDENCIES} constructor dependencies`, () => {
    const crowded = services.filter((service) => service.dependencies > MAX_DEPENDENCIES).map(({ file, name, dependencies }) => `${file} ${name}: ${dependencies}`);
    expect(crowded).toEqual([]);
  });
});
