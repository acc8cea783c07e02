// Credentials at rest: AES-256-GCM with a 96-bit random nonce per value. The key is
// `CREDENTIALS_KEY` (64 hex characters) when configured, otherwise a key file `credentials-key`
// (mode 0600) in the data directory, created on first use. Every ciphertext is bound to what it
// belongs to (additional authenticated data, e.g. the account's workspace, platform and handle),
// so a value copied onto another row does not decrypt.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';

export const KEY_FILE = 'credentials-key';
const VERSION = 'v1';

export class CredentialKeyError extends Error {}

export interface Cipher {
  encrypt(plain: string, aad: string): string;
  decrypt(sealed: string, aad: string): string;
}

function readOrCreateKeyFile(dataDir: string): Buffer {
  const file = path.join(dataDir, KEY_FILE);
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    try {
      // `wx`: when two processes race, the second fails here and reads the first one's key.
      writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
      chmodSync(file, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  const hex = readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/i.test(hex)) throw new CredentialKeyError(`${file} does not hold a 64-hex-character key`);
  return Buffer.from(hex, 'hex');
}

export function createCipher(key: Buffer): Cipher {
  if (key.length !== 32) throw new CredentialKeyError('the credentials key must be 32 bytes');
  return {
    encrypt(plain, aad) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      c.setAAD(Buffer.from(aad, 'utf8'));
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return [VERSION, iv.toString('base64url'), c.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
    },
    decrypt(sealed, aad) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== VERSION || iv === undefined || tag === undefined || body === undefined) throw new CredentialKeyError('not a sealed credential');
      const d = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      d.setAAD(Buffer.from(aad, 'utf8'));
      d.setAuthTag(Buffer.from(tag, 'base64url'));
      try {
        return Buffer.concat([d.update(Buffer.from(body, 'base64url')), d.final()]).toString('utf8');
      } catch {
        throw new CredentialKeyError('the stored credential does not decrypt with this key (was CREDENTIALS_KEY or the key file changed?)');
      }
    },
  };
}

const ciphers = new WeakMap<Config, Cipher>();

/** The instance's cipher for stored credentials (the key is read or created once per config). */
export function credentialCipher(config: Config): Cipher {
  let c = ciphers.get(config);
  if (!c) {
    c = createCipher(config.credentialsKey ? Buffer.from(config.credentialsKey, 'hex') : readOrCreateKeyFile(config.dataDir));
    ciphers.set(config, c);
  }
  return c;
}
