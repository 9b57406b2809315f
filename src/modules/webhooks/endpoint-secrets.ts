import { serviceSecret } from '../../lib/service-secret.js';
import type { DataScope } from '../../db/tenant.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { AppError } from '../../lib/errors.js';
import { SecretBox } from '../../lib/secret-box.js';

/**
 * Which key seals webhook signing secrets. Production secrets need WEBHOOK_SECRET_KEY from
 * configuration: a key kept next to the data it protects protects nothing. The test
 * environment, where no real customer relies on the secret, falls back to a development key
 * the service generates and keeps in its database, so `npm start` works without setup.
 */
let configuredKey: Buffer | undefined;

export function configureWebhookSecretKey(key: Buffer | undefined): void {
  configuredKey = key;
}

const DEV_KEY_SETTING = 'webhook_dev_secret_key';

async function devBox(db: DataScope): Promise<SecretBox> {
  return new SecretBox(await serviceSecret(db, DEV_KEY_SETTING));
}

async function boxFor(db: DataScope, mode: Mode): Promise<SecretBox> {
  if (configuredKey) return new SecretBox(configuredKey);
  if (mode === 'prod') {
    throw new AppError(
      'secret_key_missing',
      'WEBHOOK_SECRET_KEY is not configured: production webhook signing secrets are stored encrypted with it. Set it to 32 random bytes (e.g. `openssl rand -base64 32`) and restart.',
    );
  }
  return devBox(db);
}

export async function sealSigningSecret(db: DataScope, mode: Mode, secret: string): Promise<string> {
  return (await boxFor(db, mode)).seal(secret);
}

export async function openSigningSecret(db: DataScope, mode: Mode, sealed: string): Promise<string> {
  return (await boxFor(db, mode)).open(sealed);
}
