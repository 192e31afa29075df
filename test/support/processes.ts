import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

/** Environment for a child process: this one's, minus anything Airdate reads, plus `env`. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(AIRDATE_|DATABASE_URL$|PORT$)/.test(name)));
  return { ...base, ...env };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Which build of Airdate a child process runs. */
export interface RunOptions {
  /**
   * A one-file build (scripts/build.mjs, what `npm start` runs) to run with plain node; by
   * default the TypeScript sources run through tsx.
   */
  built?: string;
  /** `npm start` itself (it rebuilds dist/ first), the way the README runs the server. */
  viaNpmStart?: boolean;
}

/**
 * Runs `airdate <args>` and collects its output: through tsx as `npm run airdate` does, or, with
 * `viaNpm`, as `npm run airdate -- <args>` itself, the way an operator types it.
 */
export function runCli(args: string[], env: Record<string, string>, options: RunOptions & { viaNpm?: boolean } = {}): Promise<CliResult> {
  const [command, commandArgs] = options.viaNpm
    ? ['npm', ['run', '--silent', 'airdate', '--', ...args]]
    : options.built
      ? [process.execPath, [options.built, ...args]]
      : [tsx, ['src/main.ts', ...args]];
  return new Promise((resolve, reject) => {
    const child = spawn(command, commandArgs, { cwd: root, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface ServerProcess {
  child: ChildProcess;
  /** Where it listens; empty for a worker. */
  baseUrl: string;
  output: () => string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Spawns `airdate serve` on a free port (PORT=0) with `env`. */
function spawnServer(env: Record<string, string>, options: RunOptions): ChildProcess {
  // Node itself with tsx's loader, not the tsx command: that one runs the server as a child
  // process of its own, so a SIGKILL sent to it would not reach the server.
  const [command, args] = options.viaNpmStart
    ? ['npm', ['start', '--silent']]
    : [process.execPath, options.built ? [options.built, 'serve'] : ['--import', 'tsx', 'src/main.ts', 'serve']];
  return spawn(command, args, {
    cwd: root,
    env: childEnv({ PORT: '0', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * Starts `airdate serve` on a free port and resolves once it prints its listening line;
 * rejects with the process's output if it exits first. `onSpawn` gets the process at once.
 */
export function startServer(env: Record<string, string>, options: RunOptions = {}, onSpawn?: (child: ChildProcess) => void): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    const child = spawnServer(env, options);
    onSpawn?.(child);
    let output = '';
    const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      // A worker (AIRDATE_ROLE=worker) has no HTTP listener: ready once it says it runs jobs.
      const match = /listening on (http:\/\/localhost:\d+)/.exec(output) ?? /worker running jobs()/.exec(output);
      if (match) {
        resolve({
          child,
          baseUrl: match[1]!,
          output: () => output,
          stop: () => {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => reject(new Error(`serve exited with ${code} before listening:\n${output}`)));
  });
}

/** How a process ended, and what it printed. */
export interface ProcessEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

/**
 * Runs `airdate serve` until it ends by itself (a process told to crash, AIRDATE_TEST_CRASH_AT);
 * rejects if it is still running after `timeoutMs` (and kills it).
 */
export function runServerUntilExit(env: Record<string, string>, timeoutMs: number, options: RunOptions = {}): Promise<ProcessEnd> {
  return new Promise((resolve, reject) => {
    const child = spawnServer(env, options);
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve still ran after ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output });
    });
  });
}
