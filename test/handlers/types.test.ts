// The handler contract at compile time. Each line after a `// @ts-expect-error` is a handler that
// drifts from the spec; `tsc --noEmit` (npm test) fails if one of them stops being an error (an
// unused directive is itself an error). The test below compiles this file without the
// directives and checks that every marked line is refused, and nothing else.
import test from 'ava';
import path from 'node:path';
import fs from 'node:fs';
import ts from 'typescript';
import type { Handler, ModelHandler } from '../../handlers/types.ts';
import type { HandlerMap } from '../../handlers/index.ts';
import type { Scope } from '../../spec/scopes.ts';

// A reply that matches the spec compiles.
export const balance: Handler<'getBalance'> = async ({ caller }) => ({ balance: caller.owner.userId, held: 0, unit: 'credit' });

// @ts-expect-error -- a reply missing a field the spec requires (Balance.unit)
export const missingField: Handler<'getBalance'> = async () => ({ balance: 1, held: 0 });

// @ts-expect-error -- a field of the wrong type
export const wrongType: Handler<'getBalance'> = async () => ({ balance: '1', held: 0, unit: 'credit' });

export const params: Handler<'deleteOAuthClient'> = async ({ params: p }) => {
  // @ts-expect-error -- deleteOAuthClient has no `request_id` path parameter
  const id: string = p.request_id;
  return { id, deleted: true };
};

export const body: Handler<'createOAuthClient'> = async ({ body: b }) => {
  // @ts-expect-error -- the body's fields are the spec's (`name`, not `title`)
  const title: string = b.title;
  return { id: '1', client_id: title, name: b.name, allowed_scopes: b.scopes, created_at: '' };
};

export const publicOperation: Handler<'getHealth'> = async ({ caller }) => {
  // @ts-expect-error -- a public operation has no caller
  const userId: number = caller.userId;
  return { status: 'ok', database: 'ok', queue: String(userId) };
};

// @ts-expect-error -- a model endpoint answers { request_id }
export const model: ModelHandler = async () => ({ id: 'x' });

// @ts-expect-error -- the map is keyed by operationId: another operation's handler does not fit
export const map: HandlerMap = { getUserDetails: balance };

// @ts-expect-error -- a scope the spec's OAuth2 scheme does not declare
export const scope: Scope = 'keys:admin';

const FILE = import.meta.filename;

test('every drift marked in this file is a compile error, and only those lines are', (t) => {
  const config = ts.getParsedCommandLineOfConfigFile(path.resolve(import.meta.dirname, '../../tsconfig.json'), {}, {
    ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => t.fail(ts.flattenDiagnosticMessageText(d.messageText, '\n')),
  })!;
  const source = fs.readFileSync(FILE, 'utf8');
  const marked: number[] = [];
  const stripped = source.split('\n').map((line, i) => {
    if (!line.trimStart().startsWith('// @ts-expect-error')) return line;
    marked.push(i + 2); // 1-based number of the line the directive covers
    return '';
  }).join('\n');
  const host = ts.createCompilerHost(config.options);
  const read = host.readFile.bind(host);
  host.readFile = (f) => (path.resolve(f) === FILE ? stripped : read(f));
  const program = ts.createProgram({ rootNames: [FILE], options: config.options, host });
  const errors = ts.getPreEmitDiagnostics(program, program.getSourceFile(FILE));
  const lines = [...new Set(errors.map((d) => d.file!.getLineAndCharacterOfPosition(d.start!).line + 1))].sort((a, b) => a - b);
  t.true(marked.length >= 8);
  t.deepEqual(lines, marked, errors.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('\n'));
});
