import { test, expect } from '@playwright/test';

test('the page loads and names the lab', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Program RL Lab' })).toBeVisible();
});
