import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import type { TLSSocket } from 'node:tls';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sendWebhook } from '../../src/webhooks/send-webhook.ts';
import type { LookupFunction } from '../../src/webhooks/send-webhook.ts';
import { policies, testSecret } from '../support/webhook-receiver.ts';

const hasOpenssl = spawnSync('openssl', ['version']).status === 0;
const scratch = mkdtempSync(path.join(tmpdir(), 'airdate-webhook-tls-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('sendWebhook over https', () => {
  it.skipIf(!hasOpenssl)(`keeps the host name for SNI and the certificate check while connecting to the checked address${hasOpenssl ? '' : ' (SKIPPED: openssl is not on PATH)'}`, async () => {
    // A self-signed certificate for hooks.example: the client must refuse it (it trusts only real CAs).
    const key = path.join(scratch, 'key.pem');
    const cert = path.join(scratch, 'cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-subj', '/CN=hooks.example', '-addext', 'subjectAltName=DNS:hooks.example', '-keyout', key, '-out', cert], { stdio: 'ignore' });
    const serverNames: (string | false | null)[] = [];
    const server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_, response) => response.writeHead(204).end());
    // The client refuses the certificate, so the handshake fails on the server too; by then the
    // ClientHello has told the server which name the client asked for (SNI).
    server.on('tlsClientError', (_error, socket) => serverNames.push((socket as TLSSocket).servername));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const lookups: string[] = [];
    const lookup: LookupFunction = (hostname, _options, callback) => {
      lookups.push(hostname);
      callback(null, [{ address: '127.0.0.1', family: 4 }]);
    };
    try {
      const result = await sendWebhook({ url: `https://hooks.example:${port}/`, webhookId: 'msg_tls', body: '{}', secret: testSecret, policy: policies.withLoopback, timeoutMs: 5000, lookup });
      expect(result).toMatchObject({ outcome: 'retry', statusCode: null, error: expect.stringMatching(/^TLS: self[- ]signed certificate/) });
      expect(lookups).toEqual(['hooks.example']);
      await expect.poll(() => serverNames).toEqual(['hooks.example']);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
