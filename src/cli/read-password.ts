import type { Readable, Writable } from 'node:stream';
import type { ReadStream } from 'node:tty';
import { passwordLength } from '../limits.ts';

/**
 * How the command line gets a password without it ever being an argument (which `ps` and the
 * shell history would show): one line from stdin for scripts (`--password-stdin`), or typed at
 * a terminal with echo off, twice (`--password`).
 */

/** A password that could not be read: a usage problem, reported on one line. */
export class PasswordInputError extends Error {
  override name = 'PasswordInputError';
}

/** Longest line read: a password is at most passwordLength.max characters (4 bytes each at most). */
const maxLineBytes = passwordLength.max * 4 + 2;

/** The first line of `input` (without its line break); the rest is not read. */
export async function readPasswordLine(input: Readable): Promise<string> {
  let text = '';
  for await (const chunk of input) {
    text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
    const end = text.search(/\r?\n/);
    if (end >= 0) {
      text = text.slice(0, end);
      break;
    }
    if (Buffer.byteLength(text) > maxLineBytes) throw new PasswordInputError(`the password line is longer than ${passwordLength.max} characters`);
  }
  input.pause();
  if (text === '') throw new PasswordInputError('no password on stdin (write it as the first line)');
  return text;
}

/** Reads one line typed at the terminal `input` without echoing it; Ctrl-C or Ctrl-D abandons. */
export function promptHidden(prompt: string, input: ReadStream, output: Writable): Promise<string> {
  return new Promise((resolve, reject) => {
    let typed = '';
    output.write(prompt);
    input.setRawMode(true);
    input.resume();
    const finish = (error?: Error) => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      output.write('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: Buffer) => {
      for (const character of chunk.toString('utf8')) {
        if (character === '\r' || character === '\n') return finish();
        if (character === '\u0003' || character === '\u0004') return finish(new PasswordInputError('cancelled'));
        if (character === '\u007f' || character === '\b') typed = [...typed].slice(0, -1).join('');
        else typed += character;
      }
    };
    input.on('data', onData);
  });
}

/** `--password`: asks twice at a terminal; refuses when stdin is not one (use --password-stdin there). */
export async function promptNewPassword(input: Readable, output: Writable): Promise<string> {
  const terminal = input as ReadStream;
  if (!terminal.isTTY) throw new PasswordInputError('--password needs a terminal; in scripts, pipe the password to --password-stdin');
  const first = await promptHidden('New password: ', terminal, output);
  const second = await promptHidden('Repeat it: ', terminal, output);
  if (first !== second) throw new PasswordInputError('the two passwords differ');
  return first;
}
