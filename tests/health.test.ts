import { expect, it } from 'vitest';
import { describeEachDatabase } from './support/harness';

describeEachDatabase('GET /health', (h) => {
  it('answers 200 with the plain text body ok, without credentials', async () => {
    const res = await h.request('/health');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toBe('ok');
  });
});
