// Credentials at rest: AES-256-GCM sealing bound to its row; the key from configuration or a
// 0600 key file created once in the data directory.
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { createCipher, credentialCipher, KEY_FILE } from '../../server/services/crypto.js';

describe('credential sealing', () => {
  const cipher = createCipher(Buffer.alloc(32, 7));

  it('round-trips, with a fresh nonce each time', () => {
    const a = cipher.encrypt('token-123', 'row-1');
    const b = cipher.encrypt('token-123', 'row-1');
    expect(a).not.toBe(b);
    expect(a).not.toContain('token-123');
    expect(cipher.decrypt(a, 'row-1')).toBe('token-123');
  });

  it('refuses a value moved to another row, a tampered value, or another key', () => {
    const sealed = cipher.encrypt('token-123', 'row-1');
    expect(() => cipher.decrypt(sealed, 'row-2')).toThrow();
    const [v, iv, tag, body] = sealed.split('.');
    const flipped = Buffer.from(body, 'base64url');
    flipped[0] ^= 1;
    expect(() => cipher.decrypt([v, iv, tag, flipped.toString('base64url')].join('.'), 'row-1')).toThrow();
    expect(() => createCipher(Buffer.alloc(32, 8)).decrypt(sealed, 'row-1')).toThrow();
  });

  it('creates the key file once, mode 0600, and keeps using it', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cp-key-'));
    const sealed = credentialCipher(loadConfig({ DATA_DIR: dir })).encrypt('secret', 'x');
    const file = path.join(dir, KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const key = readFileSync(file, 'utf8').trim();
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    // Another process (another config object) on the same data directory reads the same key.
    expect(credentialCipher(loadConfig({ DATA_DIR: dir })).decrypt(sealed, 'x')).toBe('secret');
    expect(readFileSync(file, 'utf8').trim()).toBe(key);
  });
});
