import { execFileSync, execSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Builds the server of another commit (`rev`, e.g. the branch point) into `dir`, so a benchmark
 * can measure it beside the current one in the same run, on the same machine, under the same
 * load: `git archive` of the commit, this checkout's node_modules linked in, the Prisma clients
 * copied from this checkout when the commit's schema is this one's, else generated from its own
 * schema (`npm run db:generate` there: a commit before a migration gets the client of its own
 * tables), and a server-only build. Returns the path of its main.js.
 */
export function buildBaselineServer(rev: string, dir: string): string {
  mkdirSync(dir, { recursive: true });
  execSync(`git archive --format=tar ${JSON.stringify(rev)} | tar -x -C ${JSON.stringify(dir)}`, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const modules = path.join(dir, 'node_modules');
  if (!existsSync(modules)) symlinkSync(realpathSync(path.join(root, 'node_modules')), modules);
  if (sameSchema(rev)) cpSync(path.join(root, 'src', 'generated'), path.join(dir, 'src', 'generated'), { recursive: true });
  else execSync('npm run --silent db:generate', { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  const main = path.join(dir, 'dist', 'main.js');
  execFileSync(process.execPath, ['scripts/build.mjs', main], { cwd: dir, stdio: 'inherit' });
  return main;
}

/** Whether `rev`'s Prisma schema is this checkout's (the copied clients are then its own). */
export function sameSchema(rev: string): boolean {
  const theirs = execFileSync('git', ['show', `${rev}:prisma/schema.prisma`], { cwd: root, encoding: 'utf8' });
  const ours = execFileSync('git', ['show', 'HEAD:prisma/schema.prisma'], { cwd: root, encoding: 'utf8' });
  return theirs === ours;
}
