// Starts the example: `PHONE_VERIFY_URL=… PHONE_VERIFY_API_KEY=… npm start -w examples/express-signup`.
import type { AddressInfo } from 'node:net';
import { PhoneVerify } from '@phone-verify/client';
import { createApp } from './app.ts';

function required(name: string): string {
  const value = process.env[name];
  if (!value) {
    console.error(`${name} is not set. See examples/express-signup/README.md.`);
    process.exit(1);
  }
  return value;
}

const phoneVerify = new PhoneVerify({
  baseUrl: required('PHONE_VERIFY_URL'),
  apiKey: required('PHONE_VERIFY_API_KEY'),
});
const app = createApp(phoneVerify, { brandName: process.env.BRAND_NAME ?? 'Example sign-up' });
const server = app.listen(Number(process.env.PORT ?? 3001), process.env.HOST ?? '127.0.0.1', () => {
  const { address, port } = server.address() as AddressInfo;
  console.log(`express-signup listening on http://${address}:${port}`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => server.close(() => process.exit(0)));
