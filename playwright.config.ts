import { defineConfig } from '@playwright/test';

// Debian's chromium, never a downloaded browser (docs/architecture.md): a browser download cannot work here.
export const chromiumArgs = [
  '--no-sandbox',
  '--enable-unsafe-webgpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-default-apps',
  '--disable-domain-reliability',
  '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost',
];

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results/e2e',
  workers: 1,
  timeout: 120_000,
  retries: 0,
  use: {
    // A port of their own: `npm test` runs while `npm start` serves the lab on 4173.
    baseURL: 'http://127.0.0.1:4183',
    headless: true,
    launchOptions: { executablePath: '/usr/bin/chromium', args: chromiumArgs },
  },
  webServer: {
    command: 'npx vite preview --host 127.0.0.1 --port 4183 --strictPort',
    url: 'http://127.0.0.1:4183',
    reuseExistingServer: false,
    timeout: 60_000,
  },
});
