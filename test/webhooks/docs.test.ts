import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateWebhookSecret } from '../../src/keys/token-format.ts';
import { maxDeliveryAttempts, retryBaseDelaysMs } from '../../src/webhooks/retry-schedule.ts';
import { newWebhookId } from '../../src/webhooks/sign.ts';
import { sendWebhook } from '../../src/webhooks/send-webhook.ts';
import { policies, startReceiver } from '../support/webhook-receiver.ts';

const repository = path.resolve(import.meta.dirname, '../..');
const codeBlocks = (doc: string, language: string) =>
  [...doc.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((match) => match[1]!);
const hasPython = spawnSync('python3', ['--version']).status === 0;

// The snippets run from a scratch folder whose node_modules points at ours, so `standardwebhooks` resolves.
const scratch = mkdtempSync(path.join(tmpdir(), 'airdate-webhook-docs-'));
symlinkSync(path.join(repository, 'node_modules'), path.join(scratch, 'node_modules'), 'dir');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** One real signed delivery, as a receiver got it: the input every snippet verifies. */
async function receiveDelivery() {
  const secret = generateWebhookSecret();
  const body = JSON.stringify({ type: 'episode', title: 'Shōgun', subtitle: 'S01E02 · Servants of Two Masters — 東京', poster: 'https://img.example/p.jpg', item_key: 'episode:9', id: 9, air_date: '2024-02-27', show_id: 3 });
  const receiver = await startReceiver();
  const result = await sendWebhook({ url: receiver.url, webhookId: newWebhookId(), body, secret, policy: policies.withLoopback, timeoutMs: 5000 });
  expect(result.outcome).toBe('success');
  const { headers, body: received } = receiver.requests[0]!;
  return { secret, headers: headers as Record<string, string>, body: received };
}

type Delivery = Awaited<ReturnType<typeof receiveDelivery>>;

/** The cases every snippet must get right: the genuine delivery, a changed body, another secret, an old timestamp. */
function cases(delivery: Delivery): [Delivery, boolean][] {
  return [
    [delivery, true],
    [{ ...delivery, body: delivery.body.replace('東京', '京都') }, false],
    [{ ...delivery, secret: generateWebhookSecret() }, false],
    [{ ...delivery, headers: { ...delivery.headers, 'webhook-timestamp': String(Number(delivery.headers['webhook-timestamp']) - 3600) } }, false],
  ];
}

// docs/api.md repeats the essentials (one JavaScript and the Python snippet, the schedule): both are run.
describe.each([
  { file: 'docs/webhooks.md', javascript: 2 },
  { file: 'docs/api.md', javascript: 1 },
])('$file', ({ file, javascript }) => {
  const doc = readFileSync(path.join(repository, file), 'utf8');
  const blocks = (language: string) => codeBlocks(doc, language);
  const tag = file.replace(/\W/g, '-');

  it(`has ${javascript} JavaScript verification snippet(s) and one in Python`, () => {
    expect(blocks('js')).toHaveLength(javascript);
    expect(blocks('python')).toHaveLength(1);
  });

  it.each([...Array(javascript).keys()])('JavaScript snippet %i verifies a real delivery and refuses altered ones', async (index) => {
    const delivery = await receiveDelivery();
    const module = path.join(scratch, `verify-${tag}-${index}.mjs`);
    writeFileSync(module, blocks('js')[index]!);
    const runner = path.join(scratch, `run-${tag}-${index}.mjs`);
    writeFileSync(runner, `import { verifyAirdateWebhook } from './verify-${tag}-${index}.mjs';\nconst { secret, headers, body } = JSON.parse(process.argv[2]);\nconsole.log(JSON.stringify(verifyAirdateWebhook(secret, headers, body)));\n`);
    for (const [input, expected] of cases(delivery)) {
      expect(JSON.parse(execFileSync(process.execPath, [runner, JSON.stringify(input)], { cwd: scratch, encoding: 'utf8' }))).toBe(expected);
    }
  });

  it.skipIf(!hasPython)(`Python snippet verifies a real delivery and refuses altered ones${hasPython ? '' : ' (SKIPPED: python3 is not on PATH)'}`, async () => {
    const delivery = await receiveDelivery();
    const moduleName = `verify_${tag.replace(/-/g, '_')}`;
    writeFileSync(path.join(scratch, `${moduleName}.py`), blocks('python')[0]!);
    const runner = `import json, sys\nfrom ${moduleName} import verify_airdate_webhook\nd = json.loads(sys.argv[1])\nprint(json.dumps(verify_airdate_webhook(d["secret"], d["headers"], d["body"].encode("utf-8"))))\n`;
    for (const [input, expected] of cases(delivery)) {
      expect(JSON.parse(execFileSync('python3', ['-c', runner, JSON.stringify(input)], { cwd: scratch, encoding: 'utf8' }))).toBe(expected);
    }
  });

  it('states the retry schedule of src/webhooks/retry-schedule.ts', () => {
    const rows = ['| Attempt | Wait before it | Time since the first attempt |', '|---|---|---|', '| 1 | — | 0 |'];
    let total = 0;
    for (let attempt = 2; attempt <= maxDeliveryAttempts; attempt++) {
      const wait = retryBaseDelaysMs[attempt - 2]!;
      total += wait;
      rows.push(`| ${attempt} | ${duration(wait)} | ${duration(total)} |`);
    }
    const table = rows.join('\n');
    // On a schedule change, paste the table this prints into the doc.
    expect(doc, `${file} should hold:\n${table}`).toContain(table);
    expect(doc).toContain(`After attempt ${maxDeliveryAttempts} the notification is marked failed`);
  });
});

function duration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  const hours = Math.floor(minutes / 60);
  if (hours === 0) return `${minutes} min`;
  return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
}
